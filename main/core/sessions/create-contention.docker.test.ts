import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sessionRig, type SessionRig } from '../../../test/helpers/session-rig';
import { waitFor } from '../../../test/helpers/wait';
import type { WorkspaceInfo } from '../workspaces/runtime';
import { sessionBranch } from './session-paths';

// Issue 17, item 3: the per-workspace queue (WorkspaceRuntime.run) under contention. Ten
// create_session calls land in one workspace one turn apart (each would start its own bring-up of
// git worktree + tmux window), and half of them are deleted while their bring-up is in flight.
// With the queue, each delete waits for the bring-up it races and removes all of it: exactly the
// five kept sessions run, with five worktrees, branches and windows. With the queue bypassed
// (run = start now), deletes remove what does not exist yet and bring-ups then leave orphans.
describe('ten sessions created at once in one workspace', () => {
  let rig: SessionRig;
  let ws: WorkspaceInfo;
  beforeAll(async () => {
    rig = await sessionRig();
    ws = await rig.addWorkspace('race');
  }, 120_000);
  afterAll(() => rig?.dispose());

  it('brings the kept ones up and leaves nothing of the deleted ones behind', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 10; i++) {
      ids.push((await rig.service.create({ workspace: ws.id, name: `r${i}` })).id);
      // One turn apart, as separate requests arrive: the previous bring-up has already begun.
      await new Promise((r) => setImmediate(r));
    }
    const kept = ['r0', 'r2', 'r4', 'r6', 'r8'];
    const dropped = ids.filter((_, i) => i % 2 === 1);
    // Delete each once its bring-up holds a platform run, i.e. is about to make its worktree and window.
    const runOf = (id: string) =>
      (rig.db.prepare('SELECT run_id AS r FROM sessions WHERE id = ?').get(id) as { r: string | null } | undefined)?.r;
    await Promise.all(
      dropped.map(async (id) => {
        while (!runOf(id)) await new Promise((r) => setTimeout(r, 5));
        await rig.service.delete(id, { deleteBranch: true });
      }),
    );
    await waitFor(
      async () => (await rig.service.list(ws.id)).every((s) => s.status !== 'creating'),
      'every create to finish',
      180_000,
    );
    await rig.service.idle();
    const sessions = await rig.service.list(ws.id);
    expect(sessions.map((s) => `${s.name}:${s.status}:${s.reason ?? ''}`).sort()).toEqual(
      kept.map((n) => `${n}:running:`),
    );
    const container = ws.containerId as string;
    const lines = async (script: string) => (await rig.sh(container, script)).trim().split('\n').filter(Boolean).sort();
    expect(await lines("git -C /workspace branch --list 'nexus/*' --format='%(refname:short)'")).toEqual(
      kept.map(sessionBranch),
    );
    expect(await lines('git -C /workspace worktree list --porcelain | grep "^worktree "')).toHaveLength(
      1 + kept.length,
    );
    expect(
      await lines(`tmux list-windows -t '=${rig.config.tmuxSession}' -F '#{window_name}' | grep '^r' || true`),
    ).toEqual(kept);
  }, 240_000);
});
