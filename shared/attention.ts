/**
 * The attention roll-up, pure: "is anything waiting on me?". Each session's level comes from
 * three inputs — its row, its health from agent hooks, and whether its workspace runs at all (a
 * session whose container is down is offline, whatever its last hook said).
 */
import { z } from 'zod';
import { agentReason, conflictReason, limitedReason, statusReason } from './attention-words';
import type { AgentState, SessionStatus } from './contract/sessions';

export const AttentionLevel = z.enum(['needs_you', 'working', 'idle', 'offline']);
export type AttentionLevel = z.infer<typeof AttentionLevel>;

export interface AttentionInput {
  session: {
    id: string;
    name: string;
    workspaceName: string;
    status: SessionStatus;
    reason: string | null;
    /** Until when its provider's usage limit holds it (ISO), null or absent when it does not. */
    limitedUntil?: string | null | undefined;
  };
  health: { agentState: AgentState; at: string | null; message: string | null };
  workspaceRunning: boolean;
  /** Its branch conflicts with another finished session's (the radar's needs-you): the other's name, since when. */
  conflict?: { withSession: string; files: number; since: string } | null;
}

export const SessionAttention = z.object({
  sessionId: z.string(),
  sessionName: z.string(),
  workspaceName: z.string(),
  level: AttentionLevel,
  /** Why, in words for the operator: "Permission needed: Bash". */
  reason: z.string(),
  /** Since when (ISO time) the session has been in this state, when known. */
  since: z.string().nullable(),
  /** Until when (ISO time) its provider's usage limit holds it; absent when it does not (docs/gateway.md). */
  limitedUntil: z.string().optional(),
});
export type SessionAttention = z.infer<typeof SessionAttention>;

export const ReviewCounts = z.object({
  memories: z.number().int().nonnegative(),
  skills: z.number().int().nonnegative(),
});
export type ReviewCounts = z.infer<typeof ReviewCounts>;

export const FleetAttention = z.object({
  counts: z.object({
    needs_you: z.number().int(),
    working: z.number().int(),
    idle: z.number().int(),
    offline: z.number().int(),
  }),
  /** Sessions that need the operator, oldest first. */
  needsYou: z.array(SessionAttention),
  sessions: z.array(SessionAttention),
  review: ReviewCounts,
});
export type FleetAttention = z.infer<typeof FleetAttention>;

/** The reasons are worded in attention-words.ts, for every surface that shows them. */
export { permissionReason } from './attention-words';

export function deriveAttention({ session, health, workspaceRunning, conflict }: AttentionInput): SessionAttention {
  const base = { sessionId: session.id, sessionName: session.name, workspaceName: session.workspaceName };
  const at = (level: AttentionLevel, reason: string, since: string | null = health.at): SessionAttention => ({
    ...base,
    level,
    reason,
    since,
  });

  if (!workspaceRunning) return at('offline', `Workspace ${session.workspaceName} is not running`, null);
  switch (session.status) {
    case 'error':
      return at('needs_you', statusReason('error', session.reason));
    case 'creating':
      return at('working', statusReason('creating', null));
    case 'exited':
      return at('offline', statusReason('exited', null));
    case 'running':
      // A usage limit is not an error and needs no one: Nexus resumes it at the reset (a permission asked still wins).
      if (session.limitedUntil && health.agentState !== 'waiting_permission')
        return { ...at('working', limitedReason(session.limitedUntil)), limitedUntil: session.limitedUntil };
      // Done, and its branch and another done session's cannot both land: only the operator can choose.
      if (conflict && levelOf(health.agentState) === 'idle')
        return at('needs_you', conflictReason(conflict.withSession, conflict.files), conflict.since);
      return at(levelOf(health.agentState), agentReason(health.agentState, health.message));
  }
}

/** The attention level of a running session's agent state. */
export function levelOf(agentState: AgentState): AttentionLevel {
  switch (agentState) {
    case 'waiting_permission':
    case 'waiting_input':
      return 'needs_you';
    case 'starting':
    case 'working':
      return 'working';
    case 'idle':
      return 'idle';
    case 'exited':
      return 'offline';
  }
}

export function rollUp(items: readonly SessionAttention[], review: ReviewCounts): FleetAttention {
  const counts = { needs_you: 0, working: 0, idle: 0, offline: 0 };
  for (const item of items) counts[item.level]++;
  const needsYou = items
    .filter((i) => i.level === 'needs_you')
    .sort((a, b) => (a.since ?? '').localeCompare(b.since ?? '') || a.sessionId.localeCompare(b.sessionId));
  return { counts, needsYou, sessions: [...items], review };
}

/** Sessions that have just entered needs_you (for notifications and the tray). */
export function newlyNeedingYou(before: FleetAttention | null, after: FleetAttention): SessionAttention[] {
  const was = new Map((before?.needsYou ?? []).map((i) => [i.sessionId, i.reason]));
  return after.needsYou.filter((i) => was.get(i.sessionId) !== i.reason);
}
