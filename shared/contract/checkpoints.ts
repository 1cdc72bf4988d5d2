import { z } from 'zod';
import { operation } from './define';
import { ChangedFile, FilePatch, MessageDelivery, SessionRef } from './sessions';

/** Why a checkpoint was taken: a turn of the agent ended, or the state just before a restore. */
export const CheckpointKind = z.enum(['turn', 'before_restore']);
export type CheckpointKind = z.infer<typeof CheckpointKind>;

/**
 * The worktree's whole state (tracked and untracked, not ignored files) at one moment, kept as a
 * commit on the hidden ref `refs/nexus/checkpoints/<session>/<seq>`; the index, the branch and the
 * agent's files are left as they were.
 */
export const Checkpoint = z.object({
  sessionId: z.string(),
  /** 1, 2, … per session, in the order they were taken. */
  seq: z.number().int().positive(),
  kind: CheckpointKind,
  /** The agent's turn it closed (1, 2, …) for a `turn` checkpoint; null for one taken before a restore. */
  turn: z.number().int().positive().nullable(),
  /** For `before_restore`: the checkpoint the files were then restored to. */
  restoredTo: z.number().int().positive().nullable(),
  commit: z.string(),
  /** What it is compared with: the checkpoint before it, or for the first the point the branch left its base. */
  parent: z.string().nullable(),
  /** What changed since that parent: files, and line counts (binary files count no lines). */
  files: z.number().int().nonnegative(),
  additions: z.number().int().nonnegative(),
  deletions: z.number().int().nonnegative(),
  at: z.string(),
});
export type Checkpoint = z.infer<typeof Checkpoint>;

export const CheckpointDiff = z.object({
  sessionId: z.string(),
  seq: z.number().int().positive(),
  files: z.array(ChangedFile),
  patches: z.array(FilePatch),
  note: z.string().nullable(),
});
export type CheckpointDiff = z.infer<typeof CheckpointDiff>;

export const RestoreResult = z.object({
  sessionId: z.string(),
  /** The checkpoint whose files the worktree now holds. */
  restoredTo: z.number().int().positive(),
  /** The state just before the restore, kept so nothing is lost. */
  saved: Checkpoint,
  /** What became of the message that tells the agent; null when it could not be sent (`note` says why). */
  message: MessageDelivery.nullable(),
  note: z.string(),
});
export type RestoreResult = z.infer<typeof RestoreResult>;

const Seq = z.number().int().positive().max(1_000_000).describe('The checkpoint number (1, 2, …)');

export const checkpointOperations = {
  'checkpoints.list': operation({
    summary:
      "A session's checkpoints, one per turn of its agent (and one before each restore), with what each changed.",
    access: 'read',
    delegated: 'own-session',
    phone: true,
    audit: 'dispatcher',
    input: z.object({ session: SessionRef }).strict(),
    output: z.object({ sessionId: z.string(), checkpoints: z.array(Checkpoint) }),
  }),
  'checkpoints.diff': operation({
    summary: 'What one checkpoint changed against the one before it: files and a bounded unified diff.',
    access: 'read',
    delegated: 'own-session',
    phone: true,
    audit: 'dispatcher',
    input: z
      .object({
        session: SessionRef,
        seq: Seq,
        file: z.string().min(1).max(4096).optional().describe('One changed file, whole (bounded at 4 MB)'),
      })
      .strict(),
    output: CheckpointDiff,
  }),
  'checkpoints.restore': operation({
    summary:
      "Restore a session's files to a checkpoint: the current state is checkpointed first (nothing is lost), the " +
      'index and branch stay, and the agent is told in a message.',
    access: 'operator',
    delegated: 'refused',
    phone: true,
    audit: 'dispatcher',
    input: z.object({ session: SessionRef, seq: Seq }).strict(),
    output: RestoreResult,
  }),
};

export const checkpointEvents = {
  /** A session got a new checkpoint (a turn ended, a restore). */
  'checkpoints.changed': z.object({ sessionId: z.string(), checkpoint: Checkpoint }),
};
