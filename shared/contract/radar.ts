import { z } from 'zod';
import { operation } from './define';
import { SessionRef } from './sessions';
import { WorkspaceRef } from './workspaces';

/** One conflicting region of a file: its lines in each branch's version (1-based, inclusive; 0 lines = none). */
export const ConflictHunk = z.object({
  ours: z.object({ start: z.number().int().nonnegative(), lines: z.number().int().nonnegative() }),
  theirs: z.object({ start: z.number().int().nonnegative(), lines: z.number().int().nonnegative() }),
});
export type ConflictHunk = z.infer<typeof ConflictHunk>;

/** A file both sides changed so that git cannot merge it; no hunks when one side deleted or added it whole. */
export const ConflictFile = z.object({ path: z.string(), hunks: z.array(ConflictHunk) });
export type ConflictFile = z.infer<typeof ConflictFile>;

/**
 * Two branches of a workspace that would conflict if merged, as `git merge-tree --write-tree` says
 * (no worktree touched). `b` is a session or the base branch (`bSessionId` null).
 */
export const RadarConflict = z.object({
  aSessionId: z.string(),
  aBranch: z.string(),
  bSessionId: z.string().nullable(),
  bBranch: z.string(),
  files: z.array(ConflictFile),
  /** Both sessions' agents are done (idle or exited): only the operator can untangle it now. */
  needsYou: z.boolean(),
  /** When the radar first saw it (ISO time). */
  since: z.string(),
});
export type RadarConflict = z.infer<typeof RadarConflict>;

export const WorkspaceRadar = z.object({
  workspaceId: z.string(),
  base: z.string().nullable(),
  conflicts: z.array(RadarConflict),
  /** Sessions in a suggested landing order: those that conflict with nothing first, then fewest conflicts. */
  landingOrder: z.array(z.object({ sessionId: z.string(), branch: z.string(), conflicts: z.number().int() })),
  at: z.string().nullable(),
});
export type WorkspaceRadar = z.infer<typeof WorkspaceRadar>;

export const LandResult = z.object({
  sessionId: z.string(),
  base: z.string(),
  /** `fast_forward`: the base moved to the branch; `merge`: a merge commit joins them. */
  how: z.enum(['fast_forward', 'merge', 'up_to_date']),
  head: z.string(),
});
export type LandResult = z.infer<typeof LandResult>;

export const radarOperations = {
  'radar.get': operation({
    summary:
      "A workspace's conflict radar: which session branches would conflict with each other or the base, in which " +
      'files and hunks, and a suggested landing order.',
    access: 'read',
    delegated: 'own-workspace',
    phone: true,
    audit: 'dispatcher',
    input: z.object({ workspace: WorkspaceRef }).strict(),
    output: WorkspaceRadar,
  }),
  'radar.land': operation({
    summary:
      "Land a session: merge its branch into the workspace's base branch (fast-forward or a merge commit), refused " +
      'with the conflicting files when it would conflict. Push as usual afterwards.',
    access: 'operator',
    delegated: 'refused',
    phone: false,
    audit: 'dispatcher',
    input: z.object({ session: SessionRef }).strict(),
    output: LandResult,
  }),
};

export const radarEvents = {
  /** A workspace's radar changed (a branch moved, a turn ended, a session went). */
  'radar.changed': WorkspaceRadar,
};
