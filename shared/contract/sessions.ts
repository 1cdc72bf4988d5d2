import { z } from 'zod';
import { AgentKind } from './agent-kind';
import { operation } from './define';
import { WorkspaceRef } from './workspaces';

export const SessionStatus = z.enum(['creating', 'running', 'exited', 'error']);
export type SessionStatus = z.infer<typeof SessionStatus>;

/** What the agent is doing, from its hooks (never from screen scraping). */
export const AgentState = z.enum(['starting', 'working', 'waiting_permission', 'waiting_input', 'idle', 'exited']);
export type AgentState = z.infer<typeof AgentState>;

export { AgentKind };

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
  /** The agent CLI it runs. */
  agent: AgentKind,
  status: SessionStatus,
  reason: z.string().nullable(),
  agentState: AgentState,
  /** When the last hook event arrived (ISO time), null before the first. */
  agentStateAt: z.string().nullable(),
  /** The last hook's message, e.g. "Claude needs your permission to use Bash". */
  agentMessage: z.string().nullable(),
  /** The task it runs on (the Board's card), null for a session from before tasks. */
  taskId: z.string().nullable(),
  /** Why its agent has no platform tools (NEXUS_MCP_ENABLED=0, no nexus-mcp, NATS unavailable); null when it has them. */
  toolsReason: z.string().nullable(),
  /**
   * Until when (ISO time) its provider's usage limit holds it (a 429 that named its reset); null or absent when it is
   * not limited. Not a state of its own: the agent's state goes on (its CLI may wait the limit out itself), and Nexus
   * resumes it at the reset when the CLI gave up (docs/gateway.md, "Usage limits").
   */
  limitedUntil: z.string().nullable().optional(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type Session = z.infer<typeof Session>;

// ---- review and ship ---------------------------------------------------------------------------

export const ChangedFileStatus = z.enum(['added', 'modified', 'deleted', 'renamed', 'copied', 'type_changed']);
export type ChangedFileStatus = z.infer<typeof ChangedFileStatus>;

/** One file the session changed against its base (committed and uncommitted together). */
export const ChangedFile = z.object({
  path: z.string(),
  /** The path before a rename or copy. */
  oldPath: z.string().nullable(),
  status: ChangedFileStatus,
  /** Line counts; null for a binary file. */
  additions: z.number().int().nonnegative().nullable(),
  deletions: z.number().int().nonnegative().nullable(),
  binary: z.boolean(),
});
export type ChangedFile = z.infer<typeof ChangedFile>;

export const SessionCommit = z.object({ sha: z.string(), subject: z.string(), author: z.string(), at: z.string() });
export type SessionCommit = z.infer<typeof SessionCommit>;

/** A session's branch beside its base: what get_session shows and the Stop hook refreshes. */
export const ChangesSummary = z.object({
  /** The branch the session's worktree started from (the clone's checked-out branch). */
  base: z.string(),
  /** Commits on the session's branch that the base lacks, and the other way round. */
  ahead: z.number().int().nonnegative(),
  behind: z.number().int().nonnegative(),
  /** Files changed against the base, committed or not. */
  changedFiles: z.number().int().nonnegative(),
  additions: z.number().int().nonnegative(),
  deletions: z.number().int().nonnegative(),
  /** Whether the worktree holds changes that are not committed yet (they are not pushed). */
  uncommitted: z.boolean(),
  /** Commits on the branch that its remote copy lacks; null when the branch was never pushed. */
  unpushed: z.number().int().nonnegative().nullable(),
  at: z.string(),
});
export type ChangesSummary = z.infer<typeof ChangesSummary>;

/** One file's unified diff, cut at a bound (`truncated`) unless it was asked for whole. */
export const FilePatch = z.object({ path: z.string(), diff: z.string(), truncated: z.boolean() });
export type FilePatch = z.infer<typeof FilePatch>;

export const SessionChanges = z.object({
  sessionId: z.string(),
  branch: z.string(),
  summary: ChangesSummary,
  commits: z.array(SessionCommit),
  /** More commits exist than the list holds. */
  commitsTruncated: z.boolean(),
  /** This page of the changed files (offset/limit over all `summary.changedFiles`). */
  files: z.array(ChangedFile),
  offset: z.number().int().nonnegative(),
  /** The unified diff of the page's files, bounded in size. */
  patches: z.array(FilePatch),
  /** Why something is missing: size bounds hit, files left for the next page. Null when nothing is. */
  note: z.string().nullable(),
});
export type SessionChanges = z.infer<typeof SessionChanges>;

export const CompareLink = z.object({ provider: z.enum(['github', 'gitlab']), url: z.string() });

export const PushResult = z.object({
  pushed: z.literal(true),
  sessionId: z.string(),
  branch: z.string(),
  /** The commit the remote branch now points at. */
  head: z.string(),
  /** Whether the push made the branch on the remote (first push). */
  created: z.boolean(),
  /** The provider's compare / new pull-request page; null for hosts we cannot link. */
  link: CompareLink.nullable(),
});
export type PushResult = z.infer<typeof PushResult>;

const bySession = z.object({ session: SessionRef }).strict();

/**
 * What became of a message sent to a session's inbox: the agent's own status for it (`delivered`,
 * `held` for approval in a bypassPermissions session, `denied`, `refused`, `dropped`, `expired`), or
 * `sent_unconfirmed` when it was written but the agent said nothing in time.
 */
export const MessageDelivery = z.enum([
  'delivered',
  'held',
  'denied',
  'refused',
  'dropped',
  'expired',
  'sent_unconfirmed',
  'queued',
]);
export type MessageDelivery = z.infer<typeof MessageDelivery>;

const WorkspaceAgent = z.object({ workspaceId: z.string(), agent: AgentKind });

export const sessionOperations = {
  'sessions.defaultAgent': operation({
    summary: "The agent (claude or codex) a workspace's new sessions run when the create names none.",
    access: 'read',
    delegated: 'refused',
    phone: false,
    audit: 'dispatcher',
    input: z.object({ workspace: WorkspaceRef }).strict(),
    output: WorkspaceAgent,
  }),
  'sessions.setDefaultAgent': operation({
    summary: "Choose the agent (claude or codex) a workspace's new sessions run when the create names none.",
    access: 'write',
    delegated: 'refused',
    phone: false,
    audit: 'dispatcher',
    input: z.object({ workspace: WorkspaceRef, agent: AgentKind }).strict(),
    output: WorkspaceAgent,
  }),
  'sessions.list': operation({
    summary: 'Sessions, of one workspace or of all.',
    access: 'read',
    delegated: 'own-sessions-listed',
    phone: true,
    audit: 'dispatcher',
    input: z
      .object({
        workspace: WorkspaceRef.optional().describe(
          'Only the sessions of this workspace (id or name); all when omitted',
        ),
      })
      .strict(),
    output: z.object({ sessions: z.array(Session) }),
  }),
  'sessions.get': operation({
    summary: 'One session by id (or <workspace>/<name>).',
    access: 'read',
    delegated: 'own-session',
    phone: true,
    audit: 'dispatcher',
    input: bySession,
    output: Session,
  }),
  'sessions.create': operation({
    summary:
      'Create a session (git worktree + tmux window running the agent) in a workspace. Returns at once with status creating.',
    access: 'write',
    delegated: 'own-workspace',
    phone: false,
    audit: 'dispatcher',
    input: z
      .object({
        workspace: WorkspaceRef,
        name: SessionName,
        initialMessage: z
          .string()
          .min(1)
          .max(100_000)
          .optional()
          .describe("The session's first prompt, passed to the agent at launch"),
        taskId: z
          .string()
          .regex(/^[A-Za-z0-9_-]{1,100}$/)
          .optional()
          .describe('A task on the board to run on (else the initial message becomes its task)'),
        agent: AgentKind.optional().describe(
          "The agent CLI to run: claude (Claude Code) or codex (Codex); default: the workspace's default agent",
        ),
      })
      .strict(),
    output: Session,
  }),
  'sessions.delete': operation({
    summary:
      'Delete a session: end its window, remove its worktree and the row. Its branch stays unless ' +
      'deleteBranch; a branch with unpushed commits also needs force.',
    access: 'write',
    delegated: 'own-session',
    phone: false,
    audit: 'dispatcher',
    input: z
      .object({
        session: SessionRef,
        deleteBranch: z.boolean().optional().describe('Also delete the session branch (kept by default)'),
        force: z.boolean().optional().describe('Delete the branch even though it holds commits not pushed anywhere'),
      })
      .strict(),
    output: z.object({ deleted: z.literal(true), id: z.string(), branchDeleted: z.boolean().optional() }),
  }),
  'sessions.sendMessage': operation({
    summary: 'Send a message to a running session through its inbox socket (never typed into the terminal).',
    access: 'write',
    delegated: 'own-session',
    phone: true,
    audit: 'dispatcher',
    input: z
      .object({ session: SessionRef, text: z.string().min(1).max(100_000).describe('The message for the agent') })
      .strict(),
    output: z.object({
      sessionId: z.string(),
      status: MessageDelivery,
      /** One sentence on what the status means for the operator. */
      note: z.string(),
    }),
  }),
  'sessions.pane': operation({
    summary: "A read-only snapshot of the session's terminal pane.",
    access: 'read',
    delegated: 'refused',
    phone: true,
    audit: 'dispatcher',
    input: bySession,
    output: z.object({ sessionId: z.string(), text: z.string(), capturedAt: z.string() }),
  }),
  'sessions.changes': operation({
    summary: "A session's branch beside its base: ahead/behind, changed files and line counts.",
    access: 'read',
    delegated: 'own-session',
    phone: true,
    audit: 'dispatcher',
    input: bySession,
    output: ChangesSummary,
  }),
  'sessions.diff': operation({
    summary:
      "The session's commits since its base and its changes (committed and not): files with counts, paged, " +
      'and a bounded unified diff; `file` gives one file whole.',
    access: 'read',
    delegated: 'own-session',
    phone: true,
    audit: 'dispatcher',
    input: z
      .object({
        session: SessionRef,
        offset: z.number().int().nonnegative().optional().describe('First file of the page (0 by default)'),
        limit: z.number().int().min(1).max(200).optional().describe('Files per page (50 by default)'),
        file: z.string().min(1).max(4096).optional().describe('One changed file, whole (bounded at 4 MB)'),
      })
      .strict(),
    output: SessionChanges,
  }),
  'workspaces.disk': operation({
    summary: "A running workspace's disk use: its volume (clone and session worktrees) and each worktree.",
    access: 'read',
    delegated: 'refused',
    phone: false,
    audit: 'dispatcher',
    input: z.object({ workspace: WorkspaceRef }).strict(),
    output: z.object({
      workspaceId: z.string(),
      bytes: z.number().int().nonnegative(),
      worktrees: z.array(z.object({ name: z.string(), bytes: z.number().int().nonnegative() })),
      at: z.string(),
    }),
  }),
  'sessions.push': operation({
    summary:
      "Push the session's branch to the workspace's remote with the workspace's vault secret; returns the provider's compare/new-PR link.",
    access: 'vault',
    delegated: 'own-session',
    phone: false,
    audit: 'dispatcher',
    input: bySession,
    output: PushResult,
  }),
};

export const sessionEvents = {
  'sessions.changed': z.object({ session: Session.nullable(), removedId: z.string().optional() }),
  /** The session's changes were looked at again (its Stop hook, a push): re-read the diff. */
  'sessions.diffChanged': z.object({ sessionId: z.string(), summary: ChangesSummary }),
  /** A push in progress: git's progress lines, one step at a time. */
  'sessions.pushProgress': z.object({
    sessionId: z.string(),
    step: z.string(),
    fraction: z.number().min(0).max(1).optional(),
  }),
};
