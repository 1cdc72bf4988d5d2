import { SessionsConfig } from '../main/core/sessions/config';
import { CheckpointGit, checkpointRef } from '../main/core/review/checkpoint-git';
import { ConflictRadar } from '../main/core/review/radar';
import { reviewRig } from '../test/helpers/review-rig';
import { compare, percentiles, type Benchmark, type Measurement } from './lib';

const RUNS = 20;
const FILES = 10_000;
const CHANGED = 100;
const BRANCHES = 10;

const summarize = (samples: number[]): Measurement => ({
  ...percentiles(samples),
  perSecond: (samples.length / samples.reduce((a, b) => a + b, 0)) * 1000,
});

/**
 * Review that talks back, in a worker container over the runtime's one exec:
 * - a checkpoint of a 10,000-file worktree with 100 changed files (what each turn end costs) against the bare
 *   `git add -A && git write-tree` into a temporary index (a copy of the agent's, as the checkpoint starts from);
 * - the radar's check of one moved branch against 9 other live branches and the base against the same 10
 *   bare `git merge-tree --write-tree` calls in one exec.
 */
const bench: Benchmark = async () => {
  const rig = await reviewRig();
  try {
    await rig.sh(`cd /workspace; mkdir -p src; i=0; while [ $i -lt ${FILES} ]; do echo "file $i" > src/f$i.txt; i=$((i+1)); done
      seq 1 200 > shared.txt; git add -A; git commit -qm base`);
    const wt = '/workspace/.nexus-worktrees/big';
    await rig.addSession('big');
    const git = new CheckpointGit(rig.runtime, SessionsConfig.parse({}).repoDir);
    const touch = (n: number) =>
      rig.sh(
        `cd ${wt}; i=0; while [ $i -lt ${CHANGED} ]; do echo "turn ${n}" >> src/f$((i * 97)).txt; i=$((i+1)); done`,
      );
    const bare = `cd ${wt}; t=$(mktemp -d); cp "$(git rev-parse --path-format=absolute --git-path index)" $t/index
      GIT_INDEX_FILE=$t/index git add -A; GIT_INDEX_FILE=$t/index git write-tree >/dev/null; rm -rf $t`;
    const base: number[] = [];
    const subject: number[] = [];
    let prev: string | null = null;
    let changed = 0;
    for (let i = 0; i <= RUNS; i++) {
      await touch(i);
      let t = performance.now();
      await rig.sh(bare);
      const b = performance.now() - t;
      t = performance.now();
      const c = await git.take(rig.target, wt, checkpointRef('bench', i + 1), `bench ${i}`, prev);
      const s = performance.now() - t;
      prev = c.commit;
      changed = c.files;
      if (i === 0) continue; // warm-up
      base.push(b);
      subject.push(s);
    }

    // Ten live branches, each a commit off main; b0 is the one that moves.
    for (let i = 0; i < BRANCHES; i++) {
      await rig.sh(`cd /workspace; git branch nexus/b${i} main`);
      await rig.addSessionRow(`b${i}`);
      await rig.sh(`cd ${wt}; git checkout -q --detach; t=$(mktemp); rm -f $t; export GIT_INDEX_FILE=$t
        git read-tree nexus/b${i}; sed "${i === 1 ? 5 : i * 10 + 5}s/.*/b${i}/" shared.txt > /tmp/s$i; h=$(git hash-object -w /tmp/s$i)
        git update-index --cacheinfo 100644,$h,shared.txt; c=$(git commit-tree $(git write-tree) -p nexus/b${i} -m b${i})
        git update-ref refs/heads/nexus/b${i} $c; rm -f $t /tmp/s$i`);
    }
    const radar = new ConflictRadar(rig.deps);
    const pairs = Array.from({ length: BRANCHES - 1 }, (_, i) => `nexus/b0 nexus/b${i + 1}`).concat('nexus/b0 main');
    const bareRadar = `cd /workspace; for p in ${pairs.map((p) => `'${p}'`).join(' ')}; do set -- $p; git merge-tree --write-tree --name-only --no-messages "refs/heads/$1" "refs/heads/$2" >/dev/null || :; done`;
    const rBase: number[] = [];
    const rSubject: number[] = [];
    for (let i = 0; i <= RUNS; i++) {
      let t = performance.now();
      await rig.sh(bareRadar);
      const b = performance.now() - t;
      t = performance.now();
      await radar.check(rig.workspace.id, new Set(['nexus/b0']));
      const s = performance.now() - t;
      if (i === 0) continue;
      rBase.push(b);
      rSubject.push(s);
    }
    const seen = await radar.get(rig.workspace.id);
    const checkpoint = compare(
      `checkpoint per turn, ${FILES.toLocaleString('en')}-file worktree, ${CHANGED} changed files (p50 of ${RUNS})`,
      'git add -A && git write-tree into a temporary index (same exec)',
      summarize(subject),
      summarize(base),
      '≤ 150 ms p95, ≤ 1.2× the bare commands',
    );
    checkpoint.extra = { p95Ms: Math.round(percentiles(subject).p95Ms), filesPerCheckpoint: changed };
    const check = compare(
      `conflict radar, one branch against ${BRANCHES - 1} live branches and the base (p50 of ${RUNS})`,
      `the ${pairs.length} bare git merge-tree calls (same exec)`,
      summarize(rSubject),
      summarize(rBase),
      '≤ 1.5× the bare git merge-tree calls',
    );
    check.extra = { conflicts: seen.conflicts.length };
    return [checkpoint, check];
  } finally {
    await rig.dispose();
  }
};
export default bench;
