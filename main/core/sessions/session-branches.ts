import { NexusError } from '../../../shared/errors';
import type { ContainerExec, ExecTarget } from './container-sh';

/**
 * The session branch at delete time: kept by default; deleted on request, but a branch holding
 * commits that were never pushed (beyond its remote copy, or beyond the base when it has none)
 * is deleted only with `force`. Also the worktree prune when the workspace starts.
 */

const UNPUSHED = `
repo=$1; br=$2
cd "$repo" || exit 3
git rev-parse -q --verify "refs/heads/$br" >/dev/null || { echo none; exit 0; }
if git rev-parse -q --verify "refs/remotes/origin/$br" >/dev/null; then
  git rev-list --count "refs/remotes/origin/$br..refs/heads/$br"
else
  base=$(git symbolic-ref --quiet --short HEAD) || base=HEAD
  git rev-list --count "$base..refs/heads/$br"
fi
`;

export class SessionBranches {
  constructor(
    private readonly exec: ContainerExec,
    private readonly repoDir: string,
  ) {}

  /** Commits on the branch not pushed anywhere; null when the branch is gone. */
  async unpushed(ws: ExecTarget, branch: string): Promise<number | null> {
    const r = await this.exec.exec(ws, ['sh', '-c', UNPUSHED, 'sh', this.repoDir, branch]);
    if (r.exitCode !== 0) throw new NexusError('unavailable', `Reading branch ${branch} failed: ${r.stderr.trim()}`);
    const out = r.stdout.trim();
    return out === 'none' ? null : Number(out);
  }

  /** Refuses (before anything is removed) to delete a branch with unpushed commits unless forced. */
  async checkDelete(ws: ExecTarget, branch: string, force: boolean): Promise<void> {
    if (force) return;
    const n = await this.unpushed(ws, branch);
    if (n)
      throw new NexusError(
        'conflict',
        `Branch ${branch} holds ${n} commit${n === 1 ? '' : 's'} not pushed anywhere; ` +
          'push it first, keep the branch, or delete with force.',
      );
  }

  async delete(ws: ExecTarget, branch: string): Promise<boolean> {
    const r = await this.exec.exec(ws, ['git', '-C', this.repoDir, 'branch', '-D', '--', branch]);
    return r.exitCode === 0;
  }

  /** Drops records of worktrees whose directory is gone (run when the workspace starts). */
  async prune(ws: ExecTarget): Promise<void> {
    await this.exec.exec(ws, ['git', '-C', this.repoDir, 'worktree', 'prune']);
  }
}
