import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Checkpoint } from '../../../shared/contract/checkpoints';
import { reviewRig } from '../../../test/helpers/review-rig';
import { Checkpoints } from './checkpoints';

// One worker container with a clone and one session worktree; the agent's turns are shell edits and
// the sessions module's `turnEnded` signal, as its Stop hook raises it.
let rig: Awaited<ReturnType<typeof reviewRig>>;
let checkpoints: Checkpoints;
let sessionId = '';
const wt = '/workspace/.nexus-worktrees/s';
const seen: Checkpoint[] = [];

/** The worktree's whole state as a tree id (tracked and untracked, not ignored), through a throw-away index. */
const stateTree = () =>
  rig.sh(`cd ${wt}; t=$(mktemp); rm -f $t; GIT_INDEX_FILE=$t git add -A; GIT_INDEX_FILE=$t git write-tree; rm -f $t`);
/** What a checkpoint must leave alone: the agent's index, HEAD and branch. */
const agentSide = () => rig.sh(`cd ${wt}; git ls-files -s; git rev-parse HEAD; git symbolic-ref HEAD`);

async function turn(script: string, n: number): Promise<Checkpoint> {
  await rig.sh(`cd ${wt}; ${script}`);
  const before = seen.length;
  rig.signals.emit('turnEnded', { sessionId, workspaceId: rig.workspace.id });
  const until = Date.now() + 20_000;
  while (seen.length === before && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
  const c = seen.at(-1);
  expect(c?.turn).toBe(n);
  return c as Checkpoint;
}

beforeAll(async () => {
  rig = await reviewRig();
  await rig.sh(
    `cd /workspace; printf 'one\\ntwo\\n' > keep.txt; echo '*.log' > .gitignore; git add -A; git commit -qm base`,
  );
  sessionId = (await rig.addSession('s')).id;
  checkpoints = new Checkpoints(rig.deps, rig.db);
  checkpoints.follow();
  rig.events.subscribe((e) => {
    if (e.name === 'checkpoints.changed') seen.push((e.payload as { checkpoint: Checkpoint }).checkpoint);
  });
}, 180_000);
afterAll(async () => {
  await rig?.dispose();
});

describe('a checkpoint per turn', () => {
  const trees: string[] = [];
  let agent = '';

  it('records three turns as three checkpoints, untracked files in, ignored ones out, the agent side untouched', async () => {
    const c1 = await turn(`printf 'one\\nTWO\\n' > keep.txt; echo fresh > new.txt; echo noise > debug.log`, 1);
    trees.push((await stateTree()).trim());
    // What git saw of keep.txt, should the checkpoint miss its change (seen once in CI, never alone).
    const keep = await rig.sh(
      `cd ${wt}; cat keep.txt; stat -c '%y %s %i' keep.txt; git ls-files --debug keep.txt; ` +
        'k=$(git rev-parse --path-format=absolute --git-path nexus-checkpoint-index); ' +
        'GIT_INDEX_FILE="$k" git ls-files --debug keep.txt',
    );
    expect(c1, keep).toMatchObject({ seq: 1, kind: 'turn', files: 2, additions: 2, deletions: 1 });
    const c2 = await turn(`git add -A; git commit -qm 'turn two'; echo three >> keep.txt`, 2);
    trees.push((await stateTree()).trim());
    expect(c2).toMatchObject({ seq: 2, parent: c1.commit, files: 1, additions: 1, deletions: 0 });
    agent = await agentSide();
    const status = await rig.sh(`cd ${wt}; git status --porcelain`);
    const c3 = await turn(`rm new.txt; mkdir -p dir; echo x > dir/x.txt`, 3);
    trees.push((await stateTree()).trim());
    expect(c3).toMatchObject({ seq: 3, files: 2 });
    expect(await agentSide()).toBe(agent);
    expect(await rig.sh(`cd ${wt}; git status --porcelain`)).not.toBe(status);
    const refs = await rig.sh(`cd /workspace; git for-each-ref --format='%(refname)' refs/nexus/`);
    expect(refs.trim().split('\n')).toEqual([1, 2, 3].map((n) => `refs/nexus/checkpoints/${sessionId}/${n}`));
    for (const [i, t] of trees.entries())
      expect(
        (await rig.sh(`cd /workspace; git rev-parse 'refs/nexus/checkpoints/${sessionId}/${i + 1}^{tree}'`)).trim(),
      ).toBe(t);
    expect((await checkpoints.list(`review/s`)).checkpoints.map((c) => c.turn)).toEqual([1, 2, 3]);
  }, 60_000);

  it("shows the diff each turn made, the first against the branch's fork point", async () => {
    const d1 = await checkpoints.diff(sessionId, 1);
    expect(d1.files.map((f) => [f.path, f.status])).toEqual([
      ['keep.txt', 'modified'],
      ['new.txt', 'added'],
    ]);
    expect(d1.patches.find((p) => p.path === 'keep.txt')?.diff).toMatch(/-two\n\+TWO\n/);
    const d3 = await checkpoints.diff(sessionId, 3, 'dir/x.txt');
    expect(d3.files).toHaveLength(1);
    expect(d3.patches[0]?.diff).toContain('+x');
  });

  it('restores turn 1 after checkpointing the current state, tells the agent, and leaves later states restorable', async () => {
    const r = await checkpoints.restore(sessionId, 1);
    expect(r.saved).toMatchObject({ seq: 4, kind: 'before_restore', restoredTo: 1, turn: null });
    expect(r.message).toBe('delivered');
    expect((await stateTree()).trim()).toBe(trees[0]);
    expect(await rig.sh(`cd ${wt}; cat new.txt; cat debug.log; ls`)).toBe(
      'fresh\nnoise\ndebug.log\nkeep.txt\nnew.txt\n',
    );
    expect(await agentSide()).toBe(agent);
    const told = rig.messages.at(-1);
    expect(told?.sessionId).toBe(sessionId);
    expect(told?.text).toMatch(/restored this worktree's files to checkpoint 1 \(the end of your turn 1\)/);
    expect(told?.text).toMatch(/kept as checkpoint 4/);

    await checkpoints.restore(sessionId, 3);
    expect((await stateTree()).trim()).toBe(trees[2]);
    await checkpoints.restore(sessionId, 2);
    expect((await stateTree()).trim()).toBe(trees[1]);
    expect((await checkpoints.list(sessionId)).checkpoints.map((c) => c.seq)).toEqual([1, 2, 3, 4, 5, 6]);
  }, 60_000);

  it('compares the next turn after a restore with the state restored to', async () => {
    const c = await turn(`echo four >> keep.txt`, 4);
    expect(c.parent).toBe((await checkpoints.list(sessionId)).checkpoints[1]?.commit);
    expect(c).toMatchObject({ seq: 7, files: 1, additions: 1, deletions: 0 });
  });

  it('keeps its own index between turns, and a file a .gitignore comes to ignore leaves the next checkpoint', async () => {
    expect((await rig.sh(`cd ${wt}; ls "$(git rev-parse --git-path nexus-checkpoint-index)"`)).trim()).toMatch(
      /nexus-checkpoint-index$/,
    );
    const tree = (c: Checkpoint) => rig.sh(`cd /workspace; git ls-tree -r --name-only ${c.commit}`);
    const c5 = await turn(`mkdir -p build; echo out > build/out.txt`, 5);
    expect(await tree(c5)).toContain('build/out.txt');
    const c6 = await turn(`echo 'build/' >> .gitignore`, 6);
    expect(await tree(c6)).not.toContain('build/out.txt');
    expect((await rig.sh(`cd /workspace; git rev-parse '${c6.commit}^{tree}'`)).trim()).toBe(
      (await stateTree()).trim(),
    );
    expect(c6).toMatchObject({ files: 2, additions: 1, deletions: 1 });
    // A file the agent force-adds is tracked though ignored: the next checkpoint holds it.
    const c7 = await turn(`echo trace > run.log; git add -f run.log`, 7);
    expect(await tree(c7)).toContain('run.log');
    expect(c7).toMatchObject({ files: 1, additions: 1 });
  });

  it('replaces a ref a killed core left without its row (the next turn is not refused from then on)', async () => {
    const orphan = `refs/nexus/checkpoints/${sessionId}/11`;
    await rig.sh(`cd /workspace; git update-ref ${orphan} HEAD`);
    const c8 = await turn(`echo eight >> keep.txt`, 8);
    expect(c8.seq).toBe(11);
    expect((await rig.sh(`cd /workspace; git rev-parse ${orphan}`)).trim()).toBe(c8.commit);
  });

  it('refuses a checkpoint the session does not have, changing nothing', async () => {
    const tree = await stateTree();
    await expect(checkpoints.restore(sessionId, 99)).rejects.toMatchObject({ code: 'not_found' });
    expect(await stateTree()).toBe(tree);
  });

  it("drops a deleted session's refs and rows", async () => {
    rig.removeSession(sessionId);
    await new Promise((r) => setTimeout(r, 50));
    await checkpoints.idle();
    expect((await rig.sh(`cd /workspace; git for-each-ref refs/nexus/`)).trim()).toBe('');
    await expect(checkpoints.list(sessionId)).rejects.toMatchObject({ code: 'not_found' });
  });
});
