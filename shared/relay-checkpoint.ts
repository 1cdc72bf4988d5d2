// zod/mini: the relay is resident but its start is on the first session's path, so its bundle stays small.
import * as z from 'zod/mini';

/**
 * A checkpoint core asks a workspace's resident hook relay to take (`nexus.checkpoints.<workspaceId>`), so a turn's
 * checkpoint costs one NATS request instead of a `docker exec` (~80 ms on this machine before any git runs:
 * docs/performance.md, "Review"). The relay runs CHECKPOINT_TAKE (shared/git-scripts.ts) with these arguments as
 * positional parameters and answers on the reply subject core chose under `nexus.checkpoint-replies.<workspaceId>`,
 * the only one its NATS user may publish on there. `scriptSha256` names the script core means: a relay whose bundle
 * holds another text (another build) answers `stale` and core takes its exec. Both sides parse with these schemas.
 */
const absolutePath = z.string().check(z.regex(/^\/[^\0]{0,4095}$/));
const commit = z.string().check(z.regex(/^([0-9a-f]{40}|[0-9a-f]{64})$/));

export const RelayCheckpoint = z.strictObject({
  scriptSha256: z.string().check(z.regex(/^[0-9a-f]{64}$/)),
  worktree: absolutePath,
  repo: absolutePath,
  ref: z.string().check(z.regex(/^refs\/nexus\/checkpoints\/[A-Za-z0-9_-]{1,100}\/[0-9]{1,9}$/)),
  message: z.string().check(z.maxLength(2000), z.regex(/^[^\0]*$/)),
  prev: z.nullable(commit),
  timeoutMs: z.int().check(z.positive(), z.maximum(120_000)),
});
export type RelayCheckpoint = z.infer<typeof RelayCheckpoint>;

/** The exit code the relay answers for a script it killed at its time (as `timeout` does). */
export const RELAY_TIMED_OUT = 124;

/** Bytes kept of each output in the relay's answer (a checkpoint prints one line; git's complaint fits). */
export const RELAY_CHECKPOINT_OUTPUT_MAX = 16 * 1024;

export const RelayCheckpointAnswer = z.union([
  z.strictObject({
    exitCode: z.int(),
    stdout: z.string().check(z.maxLength(RELAY_CHECKPOINT_OUTPUT_MAX)),
    stderr: z.string().check(z.maxLength(RELAY_CHECKPOINT_OUTPUT_MAX)),
  }),
  z.strictObject({ stale: z.literal(true) }),
  z.strictObject({ bad_input: z.string().check(z.maxLength(500)) }),
]);
export type RelayCheckpointAnswer = z.infer<typeof RelayCheckpointAnswer>;
