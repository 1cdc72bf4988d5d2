import { NexusError } from '../../../shared/errors';
import type { WorkspaceRuntime } from '../workspaces';
import type { SessionsConfig } from './config';
import { sh } from './container-sh';
import type { SessionLauncher } from './launch/session-launcher';
import { UNPUSHED_FN, unpushedRefusal } from './session-branches';
import { sessionPaths } from './session-paths';
import type { SessionRow, SessionStore } from './session-store';
import type { SessionUpdates } from './session-updates';
import { WORKTREE_FNS } from './worktrees';

export interface DeleteSessionDeps {
  store: Pick<SessionStore, 'delete'>;
  runtime: Pick<WorkspaceRuntime, 'find' | 'run' | 'exec'>;
  config: SessionsConfig;
  launcher: Pick<SessionLauncher, 'endRunOf'>;
  updates: Pick<SessionUpdates, 'removed'>;
}

export interface DeleteSessionOptions {
  deleteBranch?: boolean | undefined;
  force?: boolean | undefined;
}

/**
 * A session's teardown in its workspace container, in one exec (each costs 5–15 s on a loaded worker:
 * docs/performance.md): with `mode` delete, the branch's unpushed commits refuse it before anything is removed (exit
 * 4); then its window (found by name: a relaunch gives it a new id; else the id recorded), its worktree, with `mode`
 * delete or force its branch, and its state dir. Prints `removed`, and `branch` after it when the branch went.
 */
const TEARDOWN = `${WORKTREE_FNS}
${UNPUSHED_FN}
repo=$1; tmux_session=$2; name=$3; window=$4; wt=$5; state=$6; branch=$7; mode=$8
if [ "$mode" = delete ]; then
  n=$(unpushed "$repo" "$branch") || { echo "Reading branch $branch failed." >&2; exit 3; }
  case $n in none | 0) ;; *) echo "$n"; exit 4 ;; esac
fi
windows=$(tmux list-windows -t "=$tmux_session" -F '#{window_id} #{window_name}' 2>/dev/null) || windows=
while read -r id wname; do [ "$wname" = "$name" ] && { window=$id; break; }; done <<WINDOWS
$windows
WINDOWS
[ -z "$window" ] || tmux kill-window -t "$window" 2>/dev/null
remove_worktree "$repo" "$wt"
gone=
[ "$mode" = keep ] || { git -C "$repo" branch -D -- "$branch" >/dev/null 2>&1 && gone=branch; }
rm -rf -- "$state"
echo "removed $gone"
`;

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
      const p = sessionPaths(d.config, row.id, row.name);
      const mode = !opts.deleteBranch ? 'keep' : opts.force ? 'force' : 'delete';
      const r = await sh(d.runtime, ws, TEARDOWN, [
        d.config.repoDir,
        d.config.tmuxSession,
        row.name,
        row.window_id ?? '',
        p.worktree,
        p.stateDir,
        row.branch,
        mode,
      ]);
      if (r.exitCode === 4) throw unpushedRefusal(row.branch, Number(r.stdout.trim()));
      if (r.exitCode !== 0 || !r.stdout.startsWith('removed'))
        throw new NexusError(
          'unavailable',
          `Deleting session ${row.name} failed: ${r.stderr.trim().slice(0, 500) || `exit ${r.exitCode}`}`,
        );
      if (opts.deleteBranch) branchDeleted = r.stdout.trim() === 'removed branch';
      await d.launcher.endRunOf(row.id, 'finished', 'The session was deleted.');
    });
  } else await d.launcher.endRunOf(row.id, 'finished', 'The session was deleted.');
  d.store.delete(row.id);
  d.updates.removed(row.id);
  return { deleted: true, id: row.id, ...(branchDeleted !== undefined ? { branchDeleted } : {}) };
}
