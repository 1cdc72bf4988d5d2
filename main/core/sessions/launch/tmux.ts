import type { SessionsConfig } from '../config';
import type { ContainerExec, ExecTarget } from '../container-sh';

/** Live windows of the sessions' tmux session: name -> window id. */
export async function listWindows(
  runtime: ContainerExec,
  config: Pick<SessionsConfig, 'tmuxSession'>,
  ws: ExecTarget,
): Promise<Map<string, string>> {
  const r = await runtime.exec(ws, [
    'tmux',
    'list-windows',
    '-t',
    `=${config.tmuxSession}`,
    '-F',
    '#{window_id} #{window_name}',
  ]);
  const map = new Map<string, string>();
  if (r.exitCode !== 0) return map;
  // Space-separated (tmux turns a tab into `_`); session names never contain a space.
  for (const line of r.stdout.split('\n')) {
    const space = line.indexOf(' ');
    if (space > 0) map.set(line.slice(space + 1), line.slice(0, space));
  }
  return map;
}

export async function killWindow(runtime: ContainerExec, ws: ExecTarget, windowId: string): Promise<void> {
  await runtime.exec(ws, ['tmux', 'kill-window', '-t', windowId]);
}
