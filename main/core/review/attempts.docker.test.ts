import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reviewRig } from '../../../test/helpers/review-rig';
import { ShipReader } from '../ship/ship-diff';
import { ShipGit } from '../ship/ship-git';
import { Attempts, KEEP_BRANCHES_MS } from './attempts';
import { Checkpoints } from './checkpoints';

// Attempts over one worker container's clone, with the sessions module's create and delete stood in by
// worktrees and rows (the real-CLI test starts real agents); the compare reads ship's real summary.
let rig: Awaited<ReturnType<typeof reviewRig>>;
let attempts: Attempts;
let checkpoints: Checkpoints;
const branches = () => rig.sh(`cd /workspace; git for-each-ref --format='%(refname:short)' refs/heads/nexus/`);

beforeAll(async () => {
  rig = await reviewRig();
  await rig.sh(`cd /workspace; echo base > a.txt; git add -A; git commit -qm base`);
  const reader = new ShipReader(new ShipGit(rig.runtime, '/workspace'));
  const deps = {
    ...rig.deps,
    changes: async (ref: string) => {
      const s = await rig.deps.sessions.get(ref);
      return reader.summary({
        id: s.id,
        branch: s.branch,
        worktree: `/workspace/.nexus-worktrees/${s.name}`,
        workspace: rig.target,
      });
    },
  };
  checkpoints = new Checkpoints(deps, rig.db);
  checkpoints.follow();
  attempts = new Attempts(deps, rig.db, checkpoints);
}, 180_000);
afterAll(async () => {
  await rig?.dispose();
});

describe('try it N ways', () => {
  let groupId = '';

  it('starts one session per attempt, any mix of kinds, and compares them side by side', async () => {
    const g = await attempts.start({
      workspace: 'review',
      name: 'try',
      prompt: 'fix it',
      agents: ['claude', 'codex', 'claude'],
    });
    groupId = g.id;
    expect(g.attempts.map((a) => [a.name, a.agent, a.branch])).toEqual([
      ['try-1', 'claude', 'nexus/try-1'],
      ['try-2', 'codex', 'nexus/try-2'],
      ['try-3', 'claude', 'nexus/try-3'],
    ]);
    await rig.sh(`cd /workspace/.nexus-worktrees/try-2; printf 'one\\ntwo\\n' > b.txt`);
    const two = g.attempts[1]?.sessionId as string;
    rig.signals.emit('turnEnded', { sessionId: two, workspaceId: rig.workspace.id });
    await new Promise((r) => setTimeout(r, 50));
    await checkpoints.idle();
    const compared = await attempts.get(groupId);
    expect(compared.attempts.map((a) => [a.turns, a.changes?.changedFiles, a.changes?.additions])).toEqual([
      [0, 0, 0],
      [1, 1, 2],
      [0, 0, 0],
    ]);
    await expect(
      attempts.start({ workspace: 'review', name: 'try', prompt: 'again', agents: ['claude', 'claude'] }),
    ).rejects.toMatchObject({ code: 'conflict' });
  });

  it('keeps one: the others are gone, their branches kept a week, then swept', async () => {
    const kept = await attempts.keep(groupId, 'try-2');
    expect(kept.keptSessionId).toBe(kept.attempts[1]?.sessionId);
    expect(kept.attempts.map((a) => a.session?.name ?? null)).toEqual([null, 'try-2', null]);
    expect((await rig.deps.sessions.list('review')).map((s) => s.name)).toEqual(['try-2']);
    expect(await branches()).toBe('nexus/try-1\nnexus/try-2\nnexus/try-3\n');
    const due = attempts.expiring(rig.workspace.id);
    expect(due.map((d) => d.branch)).toEqual(['nexus/try-1', 'nexus/try-3']);
    expect(Date.parse(due[0]?.deleteAfter as string) - Date.now()).toBeGreaterThan(KEEP_BRANCHES_MS - 60_000);
    await expect(attempts.keep(groupId, 'try-1')).rejects.toMatchObject({ code: 'conflict' });

    expect(await attempts.sweep(new Date())).toBe(0);
    // A session that works on one of the branches again keeps it.
    await rig.deps.sessions.create({ workspace: rig.workspace.id, name: 'try-3' });
    expect(await attempts.sweep(new Date(Date.now() + KEEP_BRANCHES_MS + 1000))).toBe(1);
    expect(await branches()).toBe('nexus/try-2\nnexus/try-3\n');
    expect(attempts.expiring(rig.workspace.id)).toEqual([]);
  });

  it('starts all attempts or none', async () => {
    await rig.sh(`cd /workspace; mkdir -p .nexus-worktrees/bad-2; touch .nexus-worktrees/bad-2/x`);
    await expect(
      attempts.start({ workspace: 'review', name: 'bad', prompt: 'p', agents: ['claude', 'claude'] }),
    ).rejects.toThrow();
    expect((await rig.deps.sessions.list('review')).map((s) => s.name).sort()).toEqual(['try-2', 'try-3']);
    expect((await attempts.list('review')).groups.map((g) => g.name)).toEqual(['try']);
  });
});
