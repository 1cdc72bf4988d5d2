import { z } from 'zod';
import { operation } from './define';
import { WorkspaceRef } from './workspaces';

export const SessionStatus = z.enum(['creating', 'running', 'exited', 'error']);
export type SessionStatus = z.infer<typeof SessionStatus>;

/** What the agent is doing, from its hooks (never from screen scraping). */
export const AgentState = z.enum(['starting', 'working', 'waiting_permission', 'waiting_input', 'idle', 'exited']);
export type AgentState = z.infer<typeof AgentState>;

/** Safe as a git branch suffix (`nexus/<name>`), a tmux window name and a path segment. */
export const SessionName = z
  .string()
  .regex(
    /^[a-z0-9][a-z0-9._-]{0,62}$/,
    'use 1-63 lowercase letters, digits, dots, dashes and underscores, starting with a letter or digit',
  )
  .refine((s) => !s.includes('..') && !s.endsWith('.lock') && !s.endsWith('.'), 'not a valid branch name')
  .describe('Session name: lowercase letters, digits, dots, dashes, underscores');

export const SessionRef = z.string().min(1).max(200).describe('Session id, or <workspace>/<session name>');

export const Session = z.object({
  id: z.string(),
  workspaceId: z.string(),
  workspaceName: z.string(),
  name: z.string(),
  branch: z.string(),
  status: SessionStatus,
  reason: z.string().nullable(),
  agentState: AgentState,
  /** When the last hook event arrived (ISO time), null before the first. */
  agentStateAt: z.string().nullable(),
  /** The last hook's message, e.g. "Claude needs your permission to use Bash". */
  agentMessage: z.string().nullable(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type Session = z.infer<typeof Session>;

const bySession = z.object({ session: SessionRef }).strict();

export const sessionOperations = {
  'sessions.list': operation({
    summary: 'Sessions, of one workspace or of all.',
    access: 'read',
    input: z.object({ workspace: WorkspaceRef.optional() }).strict(),
    output: z.object({ sessions: z.array(Session) }),
  }),
  'sessions.get': operation({
    summary: 'One session by id (or <workspace>/<name>).',
    access: 'read',
    input: bySession,
    output: Session,
  }),
  'sessions.create': operation({
    summary:
      'Create a session (git worktree + tmux window running the agent) in a workspace. Returns at once with status creating.',
    access: 'write',
    input: z
      .object({
        workspace: WorkspaceRef,
        name: SessionName,
        initialMessage: z
          .string()
          .min(1)
          .max(100_000)
          .optional()
          .describe("The session's first prompt, passed as a launch argument"),
      })
      .strict(),
    output: Session,
  }),
  'sessions.delete': operation({
    summary: 'Delete a session: end its window, remove its own worktree and branch, delete the row.',
    access: 'write',
    input: bySession,
    output: z.object({ deleted: z.literal(true), id: z.string() }),
  }),
  'sessions.sendMessage': operation({
    summary: 'Send a message to a running session through its inbox socket (never typed into the terminal).',
    access: 'write',
    input: z.object({ session: SessionRef, text: z.string().min(1).max(100_000) }).strict(),
    output: z.object({ delivered: z.literal(true), sessionId: z.string() }),
  }),
  'sessions.pane': operation({
    summary: "A read-only snapshot of the session's terminal pane.",
    access: 'read',
    input: bySession,
    output: z.object({ sessionId: z.string(), text: z.string(), capturedAt: z.string() }),
  }),
};

export const sessionEvents = {
  'sessions.changed': z.object({ session: Session.nullable(), removedId: z.string().optional() }),
};
