import { NexusError } from '../../../shared/errors';
import type { ShipExec, ShipTarget } from '../ship';

/** The workspace container a review script runs in, and the runtime's one exec (as ship uses it). */
export type ReviewTarget = ShipTarget;
export type ReviewExec = ShipExec;

/** What a script run gave: its exit code and its two outputs (the runtime's exec, or the workspace's hook relay). */
export interface ScriptRun {
  exitCode: number;
  stdout: string;
  stderr: string;
}

/**
 * Runs one `sh -c` script in the workspace container with every argument a positional parameter
 * (never spliced into the script); its output, or its failure typed (scriptOutput).
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
    timeoutMs: opts.timeoutMs ?? SCRIPT_TIMEOUT_MS,
    maxOutput: opts.maxOutput ?? 4 * 1024 * 1024,
  });
  return scriptOutput(r, what);
}

/** How long a review script may run (the runtime's exec and the relay's both). */
export const SCRIPT_TIMEOUT_MS = 60_000;

/**
 * A script's stdout, or its failure typed. Exit 3: something is gone (not_found); 4: git refuses (conflict); 6: the
 * caller asked for what is not there (bad_request); anything else is `unavailable` with git's words.
 */
export function scriptOutput(r: ScriptRun, what: string): string {
  const why = r.stderr.trim().slice(0, 500);
  if (r.exitCode === 3) throw new NexusError('not_found', why || `The ${what} found nothing to work on.`);
  if (r.exitCode === 4) throw new NexusError('conflict', why || `The ${what} was refused.`);
  if (r.exitCode === 6)
    throw new NexusError('bad_request', why || `The ${what} was asked for something that is not there.`);
  if (r.exitCode !== 0) throw new NexusError('unavailable', `The ${what} failed: ${why}`);
  return r.stdout;
}
