import { z } from 'zod';
import { operation } from './define';
import { SessionRef } from './sessions';

/**
 * A session's structured view: what its agent said and did as items, not terminal bytes (docs/agents.md, "ACP
 * kinds"). Kinds that speak the Agent Client Protocol report it natively (`session/update`); core folds the
 * updates into these items, and the phone shows the same list.
 */

export const ToolCallStatus = z.enum(['pending', 'in_progress', 'completed', 'failed']);

export const TranscriptItem = z.discriminatedUnion('type', [
  /** A prompt Nexus sent (the initial message, an operator's message, a note after a denial). */
  z.object({ type: z.literal('user'), id: z.string(), text: z.string(), at: z.string() }),
  /** The agent's reply text of one stretch of its turn (chunks joined). */
  z.object({ type: z.literal('agent'), id: z.string(), text: z.string(), at: z.string() }),
  /** Its reasoning, when it shares it. */
  z.object({ type: z.literal('thought'), id: z.string(), text: z.string(), at: z.string() }),
  /** One tool call with its latest status, the files it touches and its output as text. */
  z.object({
    type: z.literal('tool'),
    id: z.string(),
    title: z.string(),
    /** read | edit | delete | move | search | execute | think | fetch | other. */
    kind: z.string(),
    status: ToolCallStatus,
    locations: z.array(z.string()),
    /** The call's input as the agent reported it (redacted). */
    input: z.unknown(),
    output: z.string(),
    at: z.string(),
  }),
  /** The agent's plan, as it last stated it (each update replaces the list). */
  z.object({
    type: z.literal('plan'),
    id: z.string(),
    entries: z.array(z.object({ content: z.string(), status: z.string(), priority: z.string() })),
    at: z.string(),
  }),
  /** A permission the agent asked for and how it was answered (`pending` while it waits). */
  z.object({
    type: z.literal('permission'),
    id: z.string(),
    /** The pending request's id while it waits (permissions.decide takes it); null once answered. */
    requestId: z.string().nullable(),
    title: z.string(),
    outcome: z.enum(['pending', 'allowed', 'denied', 'cancelled']),
    at: z.string(),
  }),
  /** A turn's end: why it stopped. */
  z.object({ type: z.literal('turn_end'), id: z.string(), stopReason: z.string(), at: z.string() }),
  /** Something Nexus says about the session (the agent exited, history could not be loaded, …). */
  z.object({ type: z.literal('notice'), id: z.string(), text: z.string(), at: z.string() }),
]);
export type TranscriptItem = z.infer<typeof TranscriptItem>;

export const Transcript = z.object({
  sessionId: z.string(),
  /** Whether this session's kind has a structured view at all (false: its terminal is the view). */
  structured: z.boolean(),
  items: z.array(TranscriptItem),
  /** Tokens the agent itself reported (the gateway's count is usage.get's and wins where both exist). */
  agentUsage: z
    .object({ inputTokens: z.number(), outputTokens: z.number(), contextUsed: z.number().nullable() })
    .nullable(),
});
export type Transcript = z.infer<typeof Transcript>;

export const transcriptOperations = {
  'sessions.transcript': operation({
    summary:
      "A session's structured view: its messages, plan, tool calls (status, files, output) and permission asks, " +
      'as items (for kinds that report them; others have their terminal).',
    access: 'read',
    delegated: 'own-session',
    phone: true,
    audit: 'dispatcher',
    input: z.object({ session: SessionRef, last: z.number().int().positive().max(2000).optional() }).strict(),
    output: Transcript,
  }),
  'sessions.cancelTurn': operation({
    summary:
      "Stop the agent's running turn (its pending permission asks are withdrawn); the session stays and takes the " +
      'next message.',
    access: 'write',
    delegated: 'own-session',
    phone: true,
    audit: 'dispatcher',
    input: z.object({ session: SessionRef }).strict(),
    output: z.object({ cancelled: z.boolean(), note: z.string() }),
  }),
};

export const transcriptEvents = {
  /** New items (or changed ones) in a session's structured view. */
  'sessions.transcriptChanged': z.object({ sessionId: z.string() }),
};
