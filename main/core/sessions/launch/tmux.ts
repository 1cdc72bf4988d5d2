import { NexusError } from '../../../../shared/errors';
import type { SessionsConfig } from '../config';
import type { ContainerExec, ExecTarget } from '../container-sh';

/** tmux 3.3's words for "there is no such session": no server, none at its socket, or no session of that name. */
const NO_WINDOWS =
  /no server running|error connecting to .*\((No such file or directory|Connection refused)\)|can't find session/;

/** Live windows of the sessions' tmux session: name -> window id; a failure to ask is an error, never "none". */
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
  if (r.exitCode !== 0) {
    if (NO_WINDOWS.test(r.stderr)) return map;
    // Anything else is not "no windows": converge would relaunch agents that are alive.
    throw new NexusError(
      'unavailable',
      `Could not list the sessions' windows: ${r.stderr.trim() || `exit ${r.exitCode}`}`,
    );
  }
  // Space-separated (tmux turns a tab into `_`); session names never contain a space.
  for (const line of r.stdout.split('\n')) {
    const space = line.indexOf(' ');
    if (space > 0) map.set(line.slice(space + 1), line.slice(0, space));
  }
  return map;
}
