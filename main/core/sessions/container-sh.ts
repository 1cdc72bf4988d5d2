import { NexusError } from '../../../shared/errors';
import type { ExecResult } from '../docker';
import type { WorkspaceInfo, WorkspaceRuntime } from '../workspaces';

/** How sessions reach a workspace container: the runtime's one exec. */
export type ContainerExec = Pick<WorkspaceRuntime, 'exec'>;

/** The workspace a command runs in (its container, read from the store). */
export type ExecTarget = Pick<WorkspaceInfo, 'name' | 'containerId'>;

/**
 * Runs `script` under `sh -c` with `args` as its positional parameters ("$1"), never spliced into
 * the script, so no name or text is ever parsed by a shell.
 */
export function sh(
  runtime: ContainerExec,
  ws: ExecTarget,
  script: string,
  args: string[],
  stdin?: string | Buffer,
): Promise<ExecResult> {
  return runtime.exec(ws, ['sh', '-c', script, 'sh', ...args], stdin === undefined ? {} : { stdin });
}

/** As `sh`, and a non-zero exit is an error naming `what` (with the start of its output). */
export async function mustSh(
  runtime: ContainerExec,
  ws: ExecTarget,
  what: string,
  script: string,
  args: string[],
  stdin?: string | Buffer,
): Promise<string> {
  const r = await sh(runtime, ws, script, args, stdin);
  if (r.exitCode !== 0)
    throw new NexusError('internal', `${what} failed: ${(r.stderr || r.stdout).trim().slice(0, 500)}`);
  return r.stdout;
}
