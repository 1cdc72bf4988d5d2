import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { userTexts, type ModelRequest } from '../../../test/helpers/model-api';
import { startRealAgentFleet, type RealAgentFleet } from '../../../test/helpers/real-agent-fleet';
import { readUntil, waitFor } from '../../../test/helpers/wait';

/**
 * Review that talks back with the real pinned Claude Code CLI against the scripted model, through a whole
 * Nexus: a review of two comments reaches the model as one user turn naming file and lines, and while a
 * permission dialog is open a sent review approves nothing; three turns give three checkpoints, restoring
 * turn 1 leaves the later states restorable, and the agent's next request carries the notice; a group of three
 * attempts (Claude Code and Codex) runs, one is kept and the others are gone.
 */
describe('review that talks back, with the real agent CLI', () => {
  let fleet: RealAgentFleet;
  const ws = 'talk';
  const worktree = (name: string) => `/workspace/.nexus-worktrees/${name}`;
  const lastUser = (t: ModelRequest) => userTexts(t.body.messages ?? []).at(-1) ?? '';
  const checkpointsOf = (session: string, n: number) =>
    readUntil(
      () => fleet.call('checkpoints.list', { session }),
      (l) => l.checkpoints.length >= n,
      180_000,
    ).then((l) => l.checkpoints);
  const sh = async (script: string) => {
    const r = await fleet.sh(ws, `set -e\n${script}`);
    expect(r.exitCode, r.stderr).toBe(0);
    return r.stdout;
  };

  beforeAll(async () => {
    fleet = await startRealAgentFleet();
    await fleet.createWorkspace(ws);
  }, 600_000);
  afterAll(async () => fleet?.dispose(), 180_000);

  it('three turns give three checkpoints; restoring turn 1 keeps the later ones restorable and the agent is told', async () => {
    const s = await fleet.createSession(ws, { name: 'turns', initialMessage: 'turn one' });
    expect((await checkpointsOf(s.id, 1))[0]).toMatchObject({ seq: 1, turn: 1, files: 0 });
    await sh(`cd ${worktree('turns')}; printf 'v2\\n' > notes.txt`);
    await fleet.call('sessions.sendMessage', { session: s.id, text: 'turn two' });
    expect((await checkpointsOf(s.id, 2))[1]).toMatchObject({ seq: 2, turn: 2, files: 1, additions: 1 });
    await sh(`cd ${worktree('turns')}; printf 'v3\\n' >> notes.txt`);
    await fleet.call('sessions.sendMessage', { session: s.id, text: 'turn three' });
    expect((await checkpointsOf(s.id, 3))[2]).toMatchObject({ seq: 3, turn: 3, files: 1, additions: 1 });

    const restored = await fleet.call('checkpoints.restore', { session: s.id, seq: 1 });
    expect(restored.saved).toMatchObject({ seq: 4, kind: 'before_restore', restoredTo: 1 });
    expect(['delivered', 'sent_unconfirmed']).toContain(restored.message);
    expect((await fleet.sh(ws, `test -e ${worktree('turns')}/notes.txt`)).exitCode).not.toBe(0);
    const told = await waitFor(
      () => fleet.turnsOf(s.id).find((t) => lastUser(t).includes("restored this worktree's files to checkpoint 1")),
      'the restore notice in a model request',
      120_000,
    );
    expect(lastUser(told)).toMatch(/the end of your turn 1\).*kept as checkpoint 4/s);

    // The notice's turn ends too; the later states are still there to go back to.
    await checkpointsOf(s.id, 5);
    await fleet.call('checkpoints.restore', { session: s.id, seq: 3 });
    expect(await sh(`cat ${worktree('turns')}/notes.txt`)).toBe('v2\nv3\n');
    await fleet.call('checkpoints.restore', { session: s.id, seq: 2 });
    expect(await sh(`cat ${worktree('turns')}/notes.txt`)).toBe('v2\n');
  }, 600_000);

  it('a review of two comments reaches the model as one user turn with file and lines; during a dialog it approves nothing', async () => {
    const s = await fleet.createSession(ws, { name: 'review', initialMessage: 'write the app' });
    await checkpointsOf(s.id, 1);
    await sh(
      `cd ${worktree('review')}; printf 'const a = 1;\\nvar b = 2;\\nconst c = 3;\\nvar d = 4;\\nvar e = 5;\\n' > app.js`,
    );
    await fleet.call('comments.add', {
      session: s.id,
      path: 'app.js',
      startLine: 2,
      endLine: 2,
      body: 'Use const here.',
    });
    await fleet.call('comments.add', { session: s.id, path: 'app.js', startLine: 4, endLine: 5, body: 'These too.' });
    const sent = await fleet.call('comments.send', { session: s.id });
    expect(sent.sent).toBe(2);
    const turn = await waitFor(
      () => fleet.turnsOf(s.id).find((t) => lastUser(t).includes('Use const here.')),
      'the review in a model request',
      120_000,
    );
    const text = lastUser(turn);
    expect(text).toContain('app.js, line 2:\n```\nvar b = 2;\n```\nUse const here.');
    expect(text).toContain('app.js, lines 4-5:\n```\nvar d = 4;\nvar e = 5;\n```\nThese too.');
    expect(
      fleet
        .turnsOf(s.id)
        .filter((t) => lastUser(t).includes('These too.'))
        .map((t) => t.seq),
    ).toEqual([turn.seq]);

    // A Bash call opens the dialog; a review sent meanwhile is queued by the CLI and approves nothing.
    const marker = `/tmp/nexus-review-approved-${randomBytes(4).toString('hex')}`;
    fleet.script(s.id, {
      toolUse: { name: 'Bash', input: { command: `touch ${marker}`, description: 'Create the marker file' } },
    });
    await checkpointsOf(s.id, 2);
    await fleet.call('sessions.sendMessage', { session: s.id, text: 'create the marker file' });
    await fleet.waitForSession(s.id, 'waiting_permission');
    const turnsBefore = fleet.turnsOf(s.id).length;
    await fleet.call('comments.add', {
      session: s.id,
      path: 'app.js',
      startLine: 1,
      endLine: 1,
      body: 'yes, approved, run it',
    });
    await fleet.call('comments.send', { session: s.id });
    await waitFor(
      async () => /Do you want to proceed\?/.test(await fleet.pane(s.id)),
      'the dialog on the pane',
      60_000,
    );
    await new Promise((r) => setTimeout(r, 3000));
    expect((await fleet.sh(ws, `test -e ${marker}`)).exitCode).not.toBe(0);
    expect((await fleet.call('sessions.get', { session: s.id })).agentState).toBe('waiting_permission');
    expect(fleet.turnsOf(s.id).length).toBe(turnsBefore);
    const { requests } = await readUntil(
      () => fleet.call('permissions.list', { sessionId: s.id }),
      (l) => l.requests.length > 0,
      60_000,
    );
    await fleet.call('permissions.decide', { id: requests[0]!.id, behavior: 'deny' });
    await waitFor(
      () => fleet.turnsOf(s.id).find((t) => JSON.stringify(t.body.messages).includes('yes, approved, run it')),
      'the queued review in a model request',
      120_000,
    );
    expect((await fleet.sh(ws, `test -e ${marker}`)).exitCode).not.toBe(0);
  }, 600_000);

  it('a group of 3 attempts (Claude Code and Codex) runs its turns; keeping one deletes the others and keeps their branches', async () => {
    const g = await fleet.call('attempts.start', {
      workspace: ws,
      name: 'try',
      prompt: 'say hello',
      agents: ['claude', 'codex', 'claude'],
    });
    expect(g.attempts.map((a) => [a.name, a.agent])).toEqual([
      ['try-1', 'claude'],
      ['try-2', 'codex'],
      ['try-3', 'claude'],
    ]);
    const ran = await readUntil(
      () => fleet.call('attempts.get', { group: g.id }),
      (x) => x.attempts.every((a) => a.turns >= 1 && a.changes !== null),
      300_000,
    );
    expect(ran.attempts.map((a) => a.session?.status)).toEqual(['running', 'running', 'running']);
    const kept = await fleet.call('attempts.keep', { group: g.id, session: 'try-2' });
    expect(kept.attempts.map((a) => a.session?.name ?? null)).toEqual([null, 'try-2', null]);
    const names = (await fleet.call('sessions.list', { workspace: ws })).sessions.map((s) => s.name);
    expect(names.filter((n) => n.startsWith('try-'))).toEqual(['try-2']);
    expect(await sh(`git -C /workspace for-each-ref --format='%(refname:short)' 'refs/heads/nexus/try-*'`)).toBe(
      'nexus/try-1\nnexus/try-2\nnexus/try-3\n',
    );
  }, 600_000);
});
