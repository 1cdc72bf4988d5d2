import { NexusError } from '../../../shared/errors';
import type { ShipExec, ShipTarget } from '../ship';

/** The workspace container a review script runs in, and the runtime's one exec (as ship uses it). */
export type ReviewTarget = ShipTarget;
export type ReviewExec = ShipExec;

/**
 * Runs one `sh -c` script in the workspace container with every argument a positional parameter
 * (never spliced into the script). Exit 3: something is gone (not_found); 4: git refuses (conflict); 6: the
 * caller asked for what is not there (bad_request);
 * anything else is `unavailable` with git's words.
 */
export async function runScript(
  exec: ReviewExec,
  ws: ReviewTarget,
  script: string,
  args: string[],
  what: string,
  opts: { timeoutMs?: number; maxOutput?: number } = {},
): Promise<string> {
  const r = await exec.exec(ws, ['sh', '-c', script, 'sh', ...args], {
    timeoutMs: opts.timeoutMs ?? 60_000,
    maxOutput: opts.maxOutput ?? 4 * 1024 * 1024,
  });
  const why = r.stderr.trim().slice(0, 500);
  if (r.exitCode === 3) throw new NexusError('not_found', why || `The ${what} found nothing to work on.`);
  if (r.exitCode === 4) throw new NexusError('conflict', why || `The ${what} was refused.`);
  if (r.exitCode === 6)
    throw new NexusError('bad_request', why || `The ${what} was asked for something that is not there.`);
  if (r.exitCode !== 0) throw new NexusError('unavailable', `The ${what} failed: ${why}`);
  return r.stdout;
}

/** The shell's common start: strict variables, no optional locks, Nexus as committer of what it writes. */
export const GIT_PRELUDE = `set -u
export GIT_OPTIONAL_LOCKS=0 GIT_LITERAL_PATHSPECS=1
export GIT_AUTHOR_NAME=Nexus GIT_AUTHOR_EMAIL=nexus@localhost GIT_COMMITTER_NAME=Nexus GIT_COMMITTER_EMAIL=nexus@localhost
`;
