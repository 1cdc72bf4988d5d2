import { NexusError } from '../../../shared/errors';
import type { ChangesExec, ChangesTarget } from '../ship/ship-git';

/**
 * The session branch at delete time: kept by default; deleted on request, but a branch holding
 * commits that were never pushed (beyond its remote copy, or beyond the base when it has none)
 * is deleted only with `force`. Also the workspace's disk use and the worktree prune on start.
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
    private readonly exec: ChangesExec,
    private readonly repoDir: string,
  ) {}

  /** Commits on the branch not pushed anywhere; null when the branch is gone. */
  async unpushed(ws: ChangesTarget, branch: string): Promise<number | null> {
    const r = await this.exec.exec(ws, ['sh', '-c', UNPUSHED, 'sh', this.repoDir, branch]);
    if (r.exitCode !== 0) throw new NexusError('unavailable', `Reading branch ${branch} failed: ${r.stderr.trim()}`);
    const out = r.stdout.trim();
    return out === 'none' ? null : Number(out);
  }

  /** Refuses (before anything is removed) to delete a branch with unpushed commits unless forced. */
  async checkDelete(ws: ChangesTarget, branch: string, force: boolean): Promise<void> {
    if (force) return;
    const n = await this.unpushed(ws, branch);
    if (n)
      throw new NexusError(
        'conflict',
        `Branch ${branch} holds ${n} commit${n === 1 ? '' : 's'} not pushed anywhere; ` +
          'push it first, keep the branch, or delete with force.',
      );
  }

  async delete(ws: ChangesTarget, branch: string): Promise<boolean> {
    const r = await this.exec.exec(ws, ['git', '-C', this.repoDir, 'branch', '-D', '--', branch]);
    return r.exitCode === 0;
  }

  /** Drops records of worktrees whose directory is gone (run when the workspace starts). */
  async prune(ws: ChangesTarget): Promise<void> {
    await this.exec.exec(ws, ['git', '-C', this.repoDir, 'worktree', 'prune']);
  }

  /** The volume's size and each session worktree's, from `du` in the container. */
  async disk(
    ws: ChangesTarget,
    volumeDir: string,
    worktreesDir: string,
  ): Promise<{ bytes: number; worktrees: { name: string; bytes: number }[] }> {
    const r = await this.exec.exec(
      ws,
      [
        'sh',
        '-c',
        'du -sk "$1" 2>/dev/null | tail -n 1; ' +
          '[ -d "$2" ] && cd "$2" && for d in */; do [ -d "$d" ] && du -sk "$d" 2>/dev/null; done; exit 0',
        'sh',
        volumeDir,
        worktreesDir,
      ],
      { timeoutMs: 120_000 },
    );
    const lines = r.stdout.trim().split('\n').filter(Boolean);
    const kb = (l: string | undefined): number => Number(/^(\d+)/.exec(l ?? '')?.[1] ?? 0) * 1024;
    return {
      bytes: kb(lines[0]),
      worktrees: lines.slice(1).map((l) => ({ name: l.replace(/^\d+\s+/, '').replace(/\/$/, ''), bytes: kb(l) })),
    };
  }
}
