import { join } from 'node:path';
import { openStore } from '../main/core/store/open';
import { WorkspaceRuntime } from '../main/core/workspaces/runtime';
import { WorkspaceStore } from '../main/core/workspaces/workspace-store';
import { tempDir } from '../test/helpers/temp-dir';
import { randomBytes } from 'node:crypto';
import { ShipGit, type ShipExec } from '../main/core/ship/ship-git';
import { ShipReader } from '../main/core/ship/ship-diff';
import { ensureTestWorkerImage, realDocker } from '../test/helpers/docker';
import { compare, percentiles, type Benchmark, type Measurement } from './lib';

const RUNS = 5;
const FILES = 1000;
const LINES_PER_FILE = 100;

function summarize(samples: number[]): Measurement {
  return {
    ...percentiles(samples),
    perSecond: (samples.length / samples.reduce((a, b) => a + b, 0)) * 1000,
  };
}

/**
 * The diff of a large change (1,000 files, 100,000 changed lines, half committed, half not) in a
 * worker container: the session changes summary and the first diff page (what the session page
 * asks for) against plain `git diff --stat` over the same exec, same container, same run.
 */
const bench: Benchmark = async () => {
  const docker = realDocker();
  const image = await ensureTestWorkerImage();
  const c = await docker.createContainer({
    Image: image,
    Entrypoint: ['sleep', 'infinity'],
    User: '1000:1000',
    Labels: { 'nexus.bench': `diff-${randomBytes(3).toString('hex')}` },
    HostConfig: { NetworkMode: 'none', Tmpfs: { '/tmp': 'rw,size=256m,mode=1777' } },
  });
  await c.start();
  const dir = tempDir('nexus-bench-diff-');
  // The workspaces' runtime (its one exec) for both the subject and the baseline.
  const runtime = new WorkspaceRuntime({ docker, store: new WorkspaceStore(openStore(join(dir.path, 'nexus.db'))) });
  const exec: ShipExec = runtime;
  const ws = { name: 'bench', containerId: c.id };
  const sh = async (script: string): Promise<string> => {
    const r = await runtime.exec(ws, ['sh', '-c', script], { timeoutMs: 600_000 });
    if (r.exitCode !== 0) throw new Error(`${script.slice(0, 80)}: ${r.stderr}`);
    return r.stdout;
  };
  try {
    await sh(`set -e; mkdir -p /workspace 2>/dev/null || true; cd /workspace; git init -q -b main .
      git config user.email b@x; git config user.name bench
      mkdir -p src; i=0; while [ $i -lt ${FILES} ]; do seq 1 ${LINES_PER_FILE * 2} > src/f$i.txt; i=$((i+1)); done
      git add -A; git commit -qm base
      git worktree add -q -b nexus/big .nexus-worktrees/big HEAD; cd .nexus-worktrees/big
      i=0; while [ $i -lt ${FILES} ]; do sed -i '1~2s/$/ changed/' src/f$i.txt; i=$((i+1)); done
      git add src/f1*.txt src/f2*.txt src/f3*.txt src/f4*.txt; git commit -qm 'half of it'`);
    const stat = (await sh('cd /workspace/.nexus-worktrees/big && git diff --shortstat main')).trim();
    const reader = new ShipReader(new ShipGit(exec, '/workspace'));
    const session = { id: 'b', branch: 'nexus/big', worktree: '/workspace/.nexus-worktrees/big', workspace: ws };
    const base: number[] = [];
    const summary: number[] = [];
    const page: number[] = [];
    const time = async (into: number[], fn: () => Promise<unknown>): Promise<void> => {
      const t = performance.now();
      await fn();
      into.push(performance.now() - t);
    };
    let firstPage = 0;
    let note: string | null = null;
    for (let i = 0; i < RUNS; i++) {
      await time(base, () => sh('cd /workspace/.nexus-worktrees/big && git diff --stat main >/dev/null'));
      await time(summary, () => reader.summary(session));
      await time(page, async () => {
        const d = await reader.diff(session, {});
        firstPage = d.patches.reduce((n, p) => n + p.diff.length, 0);
        note = d.note;
        if (d.summary.changedFiles !== FILES) throw new Error(`expected ${FILES} files, got ${d.summary.changedFiles}`);
      });
    }
    const extra = { change: stat, firstPageChars: firstPage, note: note ?? '' };
    const figures = [
      compare(
        `session changes summary, ${FILES} files / ${(FILES * LINES_PER_FILE).toLocaleString('en')} lines (p50 of ${RUNS})`,
        'git diff --stat (same exec)',
        summarize(summary),
        summarize(base),
      ),
      compare(
        `session diff, first page of 50 files (p50 of ${RUNS})`,
        'git diff --stat (same exec)',
        summarize(page),
        summarize(base),
      ),
    ];
    figures[1]!.extra = extra;
    return figures;
  } finally {
    await c.remove({ force: true });
    dir.remove();
  }
};
export default bench;
