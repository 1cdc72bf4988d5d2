import type { SessionsConfig } from './config';
import { sh, type ContainerExec, type ExecTarget } from './container-sh';
import type { SessionPaths } from './session-paths';

/**
 * Shell functions for the worktree: hide (the clone's exclude file, written by one caller at a time),
 * add (picking up a branch kept from a deleted session of the same name), and on failure remove only
 * this path and branch, then add once more; remove keeps the branch. Adds of different sessions may
 * run at once: each writes only its own branch ref, its own `.git/worktrees/<name>` (git marks it
 * `locked` while it is made, so another's prune leaves it) and its own checkout and index.
 */
export const WORKTREE_FNS = `
  remove_worktree() {
    git -C "$1" worktree remove --force "$2" 2>/dev/null
    rm -rf -- "$2"
    git -C "$1" worktree prune
    return 0
  }
  cleanup_worktree() {
    remove_worktree "$1" "$2"
    git -C "$1" branch -D "$3" 2>/dev/null
    return 0
  }
  hide_worktree() { # repo worktree: one kept inside the clone is hidden from its status (run before add_worktree)
    parent=\${2%/*}
    mkdir -p "$parent"
    # Paths by expansion, not dirname/basename: each process costs ~10-30 ms on a busy worker (docs/performance.md).
    if [ "\${parent%/*}" = "$1" ] && [ -d "$1/.git/info" -o -d "$1/.git" ]; then
      mkdir -p "$1/.git/info"
      line="/\${parent##*/}/"
      grep -qxF "$line" "$1/.git/info/exclude" 2>/dev/null || echo "$line" >> "$1/.git/info/exclude"
    fi
  }
  add_worktree() { # repo worktree branch: only git's own files, so several can run at once (launch-exec.ts)
    if git -C "$1" rev-parse -q --verify "refs/heads/$3" >/dev/null; then
      remove_worktree "$1" "$2"
      git -C "$1" worktree add -q "$2" "$3"
      return
    fi
    git -C "$1" worktree add -q -b "$3" "$2" HEAD 2>/dev/null && return 0
    cleanup_worktree "$1" "$2" "$3"
    git -C "$1" worktree add -q -b "$3" "$2" HEAD
  }`;

/**
 * Removes exactly this session's worktree (its branch stays: a delete removes it only when asked) and its state dir
 * (launch script, inbox address, run files), in one exec.
 */
export async function removeWorkArea(
  runtime: ContainerExec,
  config: Pick<SessionsConfig, 'repoDir'>,
  ws: ExecTarget,
  p: SessionPaths,
): Promise<void> {
  await sh(runtime, ws, `${WORKTREE_FNS}\nremove_worktree "$1" "$2"; rm -rf -- "$3"`, [
    config.repoDir,
    p.worktree,
    p.stateDir,
  ]);
}

export async function worktreeExists(runtime: ContainerExec, ws: ExecTarget, p: SessionPaths): Promise<boolean> {
  return (await sh(runtime, ws, 'test -d "$1"', [p.worktree])).exitCode === 0;
}
