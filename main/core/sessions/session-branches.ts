import { NexusError } from '../../../shared/errors';
import type { ContainerExec, ExecTarget } from './container-sh';

/**
 * The session branch at delete time: kept by default; deleted on request, but a branch holding
 * commits that were never pushed (beyond its remote copy, or beyond the base when it has none)
 * is deleted only with `force`. Also the worktree prune when the workspace starts.
 */

/** `unpushed <repo> <branch>`: prints the branch's commits not pushed anywhere, or `none` when it is gone. */
export const UNPUSHED_FN = `
  unpushed() {
    git -C "$1" rev-parse -q --verify "refs/heads/$2" >/dev/null || { echo none; return 0; }
    if git -C "$1" rev-parse -q --verify "refs/remotes/origin/$2" >/dev/null; then
      git -C "$1" rev-list --count "refs/remotes/origin/$2..refs/heads/$2"
    else
      base=$(git -C "$1" symbolic-ref --quiet --short HEAD) || base=HEAD
      git -C "$1" rev-list --count "$base..refs/heads/$2"
    fi
  }`;

/** The refusal of deleting a branch with `n` unpushed commits without `force`. */
export function unpushedRefusal(branch: string, n: number): NexusError {
  return new NexusError(
    'conflict',
    `Branch ${branch} holds ${n} commit${n === 1 ? '' : 's'} not pushed anywhere; ` +
      'push it first, keep the branch, or delete with force.',
  );
}

export class SessionBranches {
  constructor(
    private readonly exec: ContainerExec,
    private readonly repoDir: string,
  ) {}

  /** Drops records of worktrees whose directory is gone (run when the workspace starts). */
  async prune(ws: ExecTarget): Promise<void> {
    await this.exec.exec(ws, ['git', '-C', this.repoDir, 'worktree', 'prune']);
  }
}
