import { z } from 'zod';
import { operation } from './define';
import { SessionRef } from './sessions';
import { WorkspaceRef } from './workspaces';

/**
 * A session's own setup and run, from its repository's recipe (`customizations.nexus` in devcontainer.json,
 * docs/workspaces.md "The repo's recipe"): the setup runs in each new worktree before the agent starts.
 */
export const SetupState = z.enum(['none', 'running', 'ok', 'failed', 'skipped']);
export type SetupState = z.infer<typeof SetupState>;

export const SessionSetupView = z.object({
  sessionId: z.string(),
  /** The devcontainer.json the workspace was built from; null: none. */
  recipeFile: z.string().nullable(),
  setup: z.object({
    command: z.string().nullable(),
    state: SetupState,
    exitCode: z.number().int().nullable(),
    /** The last 16 KB of its output. */
    output: z.string(),
  }),
  run: z.object({
    command: z.string().nullable(),
    /** The tmux window it runs in (`<session>/run`), null when it was not started. */
    windowId: z.string().nullable(),
    /** The window's last lines. */
    output: z.string().nullable(),
  }),
  /** `PORT` and `NEXUS_PORTS` of its processes; null before its first launch. */
  ports: z.object({ first: z.number().int(), last: z.number().int() }).nullable(),
});
export type SessionSetupView = z.infer<typeof SessionSetupView>;

/** A relative path inside the worktree (no `..`, no leading `/`). */
export const WorktreeFilePath = z
  .string()
  .min(1)
  .max(200)
  .regex(/^(?!\/)(?!.*(?:^|\/)\.\.(?:\/|$))[A-Za-z0-9._/-]+$/, 'a path inside the worktree: letters, digits, . _ - /');

/** A file put into each new worktree, 0600: literal content, or a vault secret's value (never shown back). */
export const SessionFile = z
  .object({
    path: WorktreeFilePath,
    content: z
      .string()
      .max(64 * 1024)
      .optional(),
    secretId: z.string().min(1).max(200).optional(),
  })
  .strict()
  .refine((f) => (f.content === undefined) !== (f.secretId === undefined), 'give content or secretId, not both');
export type SessionFile = z.infer<typeof SessionFile>;

export const sessionSetupOperations = {
  'sessions.setup': operation({
    summary: "A session's setup (its state and output), its run command and window, and its ports (PORT, NEXUS_PORTS).",
    access: 'read',
    delegated: 'own-session',
    phone: true,
    audit: 'dispatcher',
    input: z.object({ session: SessionRef }).strict(),
    output: SessionSetupView,
  }),
  'sessions.retrySetup': operation({
    summary:
      'After a failed setup: run it again in the session’s window (skip: true starts the agent without it), ' +
      'then the agent starts.',
    access: 'write',
    delegated: 'own-session',
    phone: true,
    audit: 'dispatcher',
    input: z.object({ session: SessionRef, skip: z.boolean().default(false) }).strict(),
    output: SessionSetupView,
  }),
  'sessions.run': operation({
    summary:
      "Start the repository's run command (customizations.nexus.run) in its own tmux window of the session, with " +
      'its PORT and NEXUS_PORTS; a run already going is stopped first.',
    access: 'write',
    delegated: 'own-session',
    phone: true,
    audit: 'dispatcher',
    input: z.object({ session: SessionRef }).strict(),
    output: SessionSetupView,
  }),
  'workspaces.sessionFiles': operation({
    summary: 'The files put into each new session worktree of a workspace (paths, and which secret; no content).',
    access: 'read',
    delegated: 'own-workspace',
    phone: false,
    audit: 'dispatcher',
    input: z.object({ workspace: WorkspaceRef }).strict(),
    output: z.object({
      files: z.array(z.object({ path: z.string(), secretId: z.string().nullable(), literal: z.boolean() })),
    }),
  }),
  'workspaces.setSessionFiles': operation({
    summary:
      'Set the files put (0600) into each new session worktree of a workspace, e.g. .env.local: literal content or ' +
      'a vault secret’s value. Replaces the list.',
    access: 'vault',
    delegated: 'refused',
    phone: false,
    audit: 'dispatcher',
    input: z.object({ workspace: WorkspaceRef, files: z.array(SessionFile).max(20) }).strict(),
    output: z.object({
      files: z.array(z.object({ path: z.string(), secretId: z.string().nullable(), literal: z.boolean() })),
    }),
  }),
};

export const sessionSetupEvents = {
  /** A session's setup moved (running, ok, failed, skipped) or its run started. */
  'sessions.setupChanged': z.object({ sessionId: z.string(), state: SetupState }),
};
