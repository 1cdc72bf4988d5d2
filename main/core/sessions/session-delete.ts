import { NexusError } from '../../../shared/errors';
import type { WorkspaceRuntime } from '../workspaces';
import type { SessionsConfig } from './config';
import type { SessionLauncher } from './launch/session-launcher';
import { killWindow, listWindows } from './launch/tmux';
import type { SessionBranches } from './session-branches';
import { sessionPaths } from './session-paths';
import type { SessionRow, SessionStore } from './session-store';
import type { SessionUpdates } from './session-updates';
import { removeSessionState, removeWorktree } from './worktrees';

export interface DeleteSessionDeps {
  store: Pick<SessionStore, 'delete'>;
  runtime: Pick<WorkspaceRuntime, 'find' | 'run' | 'exec'>;
  config: SessionsConfig;
  branches: Pick<SessionBranches, 'checkDelete' | 'delete'>;
  launcher: Pick<SessionLauncher, 'endRunOf'>;
  updates: Pick<SessionUpdates, 'removed'>;
}

export interface DeleteSessionOptions {
  deleteBranch?: boolean | undefined;
  force?: boolean | undefined;
}

/**
 * Ends the window, removes only this session's worktree and state, deletes the row. The branch
 * stays unless `deleteBranch`; one with unpushed commits also needs `force` (refused first).
 */
export async function deleteSession(
  d: DeleteSessionDeps,
  row: SessionRow,
  opts: DeleteSessionOptions,
): Promise<{ deleted: true; id: string; branchDeleted?: boolean }> {
  const ws = d.runtime.find(row.workspace_id);
  let branchDeleted: boolean | undefined;
  if (opts.deleteBranch && !ws?.running)
    throw new NexusError('conflict', `Start workspace ${ws?.name ?? row.workspace_id} to delete branch ${row.branch}.`);
  if (ws?.running) {
    await d.runtime.run(ws.id, async () => {
      if (opts.deleteBranch) await d.branches.checkDelete(ws, row.branch, opts.force === true);
      const windowId = (await listWindows(d.runtime, d.config, ws)).get(row.name) ?? row.window_id;
      if (windowId) await killWindow(d.runtime, ws, windowId);
      const p = sessionPaths(d.config, row.id, row.name);
      await removeWorktree(d.runtime, d.config, ws, p);
      if (opts.deleteBranch) branchDeleted = await d.branches.delete(ws, row.branch);
      await d.launcher.endRunOf(row.id, 'finished', 'The session was deleted.');
      await removeSessionState(d.runtime, ws, p);
    });
  } else await d.launcher.endRunOf(row.id, 'finished', 'The session was deleted.');
  d.store.delete(row.id);
  d.updates.removed(row.id);
  return { deleted: true, id: row.id, ...(branchDeleted !== undefined ? { branchDeleted } : {}) };
}
