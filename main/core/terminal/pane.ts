import { NexusError } from '../../../shared/errors';
import type { WorkspaceInfo, WorkspaceRuntime } from '../workspaces';

/** The text on a session's tmux pane now (long lines joined). */
export async function capturePane(
  runtime: Pick<WorkspaceRuntime, 'exec'>,
  ws: Pick<WorkspaceInfo, 'name' | 'containerId'>,
  windowId: string,
): Promise<string> {
  const r = await runtime.exec(ws, ['tmux', 'capture-pane', '-p', '-J', '-t', windowId]);
  if (r.exitCode !== 0) throw new NexusError('not_found', 'The session has no live window to show.');
  return r.stdout;
}
