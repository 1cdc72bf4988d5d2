import { HAS_CREDENTIAL_TEST } from '../../agent/credential';
import { sh, type ContainerExec, type ExecTarget } from '../container-sh';

/** Whether the real CLI can start here: its binary is on PATH and a credential is injected. */
export async function agentReadiness(
  runtime: ContainerExec,
  ws: ExecTarget,
): Promise<'ready' | 'no-cli' | 'no-credential'> {
  const r = await sh(runtime, ws, `command -v claude >/dev/null || exit 4; ${HAS_CREDENTIAL_TEST} || exit 3`, []);
  return r.exitCode === 4 ? 'no-cli' : r.exitCode === 3 ? 'no-credential' : 'ready';
}

/** Whether `path` is an executable file in the container. */
export async function isExecutable(runtime: ContainerExec, ws: ExecTarget, path: string): Promise<boolean> {
  return (await sh(runtime, ws, 'test -f "$1" && test -x "$1"', [path])).exitCode === 0;
}
