import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { remoteFleetForSuite } from '../../../test/helpers/suite';
import { connectTerminal, uiCookie } from '../../../test/helpers/terminal-client';
import { waitFor } from '../../../test/helpers/wait';

// Issue 29: what the operator does with a session on a remote engine — its live terminal, its review
// diff, its push — through a whole Nexus, the real pinned Claude Code CLI and the scripted model.
// Needs root: a second dockerd and an sshd on 127.0.0.1 (test/helpers/second-engine.ts), both
// removed afterwards with the workspace and the leaf container.
describe('the operator’s terminal, diff and push on a remote engine’s session', () => {
  const ws = `ro-${randomBytes(3).toString('hex')}`;
  const remote = remoteFleetForSuite({
    workspace: ws,
    // A private repository: the clone and the push from the remote engine need the vault's provider token.
    repoToken: `ghp_${randomBytes(20).toString('hex')}`,
    // bypassPermissions: the agent's git commands run without a question (asking is remote-session's test).
    create: { bypass: true },
  });

  it('the live terminal attaches to the remote session’s pane: its screen arrives, typing reaches the agent', async () => {
    const first = `remote-screen-${randomBytes(3).toString('hex')}`;
    const s = await remote.fleet.createSession(ws, { name: 'term', initialMessage: 'say something for the screen' });
    remote.fleet.script(s.id, { text: first });
    await remote.fleet.waitForSession(s.id, (x) => x.agentState === 'idle' && remote.fleet.turnsOf(s.id).length > 0);
    // The pane is tmux in the container on the remote engine.
    await waitFor(async () => (await remote.fleet.pane(s.id)).includes(first), 'the reply on the pane');

    const { url, token } = remote.fleet.running.host;
    const t = await connectTerminal(url, s.id, { cookie: await uiCookie(url, token) });
    t.resize(120, 40);
    // What is on the remote pane comes over /api/terminal.
    await t.waitFor(first, 30_000);

    const typed = `typed-on-the-terminal-${randomBytes(3).toString('hex')}`;
    const second = `remote-live-${randomBytes(3).toString('hex')}`;
    remote.fleet.script(s.id, { text: second });
    t.input(typed);
    await waitFor(
      async () => (await remote.fleet.pane(s.id)).includes(typed),
      'the typed text on the remote pane',
      30_000,
    );
    t.input('\r');
    // Enter submitted it to the agent: the model got what was typed, and its answer comes back live.
    await waitFor(
      () => remote.fleet.turnsOf(s.id).find((r) => JSON.stringify(r.body.messages).includes(typed)),
      'the typed prompt in a model request',
      120_000,
    );
    await t.waitFor(second, 60_000);
    expect((await t.close()).code).toBe(1000);
    // Closing the viewer leaves the agent's window.
    expect((await remote.fleet.call('sessions.get', { session: s.id })).status).toBe('running');
  }, 600_000);

  it('the agent’s commit there is read as the review diff and its branch is pushed to the repository', async () => {
    const file = `remote-${randomBytes(3).toString('hex')}.txt`;
    const subject = 'Change made on the remote engine';
    const commit = [
      'git config user.email agent@example.test',
      'git config user.name Agent',
      `printf 'made far away\\n' > ${file}`,
      `git add ${file}`,
      `git commit -qm '${subject}'`,
      "echo 'not committed yet' > draft.md",
    ].join(' && ');
    const s = await remote.fleet.createSession(ws, { name: 'ship', initialMessage: 'commit the change' });
    remote.fleet.script(
      s.id,
      { toolUse: { name: 'Bash', input: { command: commit, description: 'Commit the change' } } },
      { text: 'Committed.' },
    );
    await waitFor(
      () =>
        remote.fleet
          .call('sessions.changes', { session: s.id })
          .then((c) => (c.ahead === 1 ? c : null))
          .catch(() => null),
      'the commit in the session’s changes',
      240_000,
    );
    await remote.fleet.waitForSession(s.id, (x) => x.agentState === 'idle' && remote.fleet.turnsOf(s.id).length > 1);
    const summary = await remote.fleet.call('sessions.changes', { session: s.id });
    expect(summary).toMatchObject({ base: 'main', ahead: 1, behind: 0, changedFiles: 2, uncommitted: true });
    const diff = await remote.fleet.call('sessions.diff', { session: s.id });
    expect(diff.commits.map((c) => c.subject)).toEqual([subject]);
    expect(diff.files.map((f) => f.path).sort()).toEqual(['draft.md', file].sort());
    expect(diff.patches.find((p) => p.path === file)?.diff).toContain('+made far away');

    const { branch } = await remote.fleet.call('sessions.get', { session: s.id });
    const worktreeHead = await remote.sh(`cd /workspace/.nexus-worktrees/ship && git rev-parse HEAD`);
    expect(remote.fleet.env.repo.branchHead(branch)).toBeNull();
    const pushed = await remote.fleet.call('sessions.push', { session: s.id });
    expect(pushed.created).toBe(true);
    expect(pushed.head).toBe(worktreeHead.stdout.trim());
    // The test's repository (on this machine) has the branch at the commit made on the remote engine,
    // pushed with the vault's token (the server refuses anything else).
    expect(remote.fleet.env.repo.branchHead(branch)).toBe(pushed.head);
    expect((await remote.fleet.call('sessions.changes', { session: s.id })).unpushed).toBe(0);
  }, 600_000);
});
