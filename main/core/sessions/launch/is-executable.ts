import { sh, type ContainerExec, type ExecTarget } from '../container-sh';

/** Whether `path` is an executable file in the container. */
export async function isExecutable(runtime: ContainerExec, ws: ExecTarget, path: string): Promise<boolean> {
  return (await sh(runtime, ws, 'test -f "$1" && test -x "$1"', [path])).exitCode === 0;
}
