import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repoRoot } from '../../test/helpers/core';
import { userTexts } from '../../test/helpers/model-api';
import { inPty } from '../../test/helpers/pty';
import { startRealAgentFleet, type RealAgentFleet } from '../../test/helpers/real-agent-fleet';
import { readUntil, waitFor } from '../../test/helpers/wait';
import type { FleetListing } from './ls-command';

/**
 * The CLI's main job against a whole Nexus running the real pinned agent CLI in a Docker workspace
 * (the model a scripted stand-in): create a session, list it and what it waits on, answer its
 * permission requests, message it, attach a real terminal to its window and detach, delete it.
 */
const entry = ['--import', 'tsx', 'main/cli.ts'];

describe('nexus ls, new, send, allow, deny, attach and rm on a real session (docker)', () => {
  let fleet: RealAgentFleet;
  const ws = 'cli';

  /** `nexus …` on the fleet's data dir as its own process; `input` is piped to its stdin. */
  const nexus = (args: string[], input = ''): Promise<{ code: number; stdout: string; stderr: string }> =>
    new Promise((resolve) => {
      const child = spawn(process.execPath, [...entry, ...args, '--data-dir', fleet.dataDir], { cwd: repoRoot });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
      child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      child.on('exit', (code) => resolve({ code: code ?? -1, stdout, stderr }));
      child.stdin.end(input);
    });

  beforeAll(async () => {
    fleet = await startRealAgentFleet();
    await fleet.createWorkspace(ws);
  }, 600_000);
  afterAll(async () => fleet?.dispose(), 180_000);

  it('creates a session whose first message is stdin byte for byte, lists it, messages it and deletes it', async () => {
    const first = '  Fix the “login” bug:\n\tthe form rejects a+b@example.com\n';
    const created = await nexus(['new', ws, 'piped', '-m', '-'], first);
    expect(created.stderr).toBe('');
    expect(created.code).toBe(0);
    expect(created.stdout).toMatch(/^Created cli\/piped \(claude, id [0-9a-f-]{36}\), creating\./);
    const s = await fleet.call('sessions.get', { session: 'cli/piped' });
    expect(userTexts((await fleet.firstTurn(s.id)).body.messages ?? [])[0]).toBe(first);

    await fleet.waitForSession(s.id, (x) => x.agentState === 'idle' && fleet.turnsOf(s.id).length > 0);
    const listed = await nexus(['ls']);
    expect(listed.code).toBe(0);
    expect(listed.stdout).toMatch(/^cli {2}running/m);
    expect(listed.stdout).toMatch(/^ {2}cli\/piped {2}claude {2}Idle/m);
    const json = JSON.parse((await nexus(['ls', '--json'])).stdout) as FleetListing;
    expect(json.workspaces[0]?.sessions[0]).toMatchObject({ id: s.id, ref: 'cli/piped', attention: { level: 'idle' } });

    const note = `a note from the terminal ${randomBytes(3).toString('hex')}`;
    const sent = await nexus(['send', 'cli/piped', '-'], note);
    expect(sent.code).toBe(0);
    expect(sent.stdout).toMatch(/^sent_unconfirmed: /);
    await waitFor(
      () => fleet.turnsOf(s.id).some((t) => JSON.stringify(t.body.messages).includes(note)),
      'the message in a model request',
      120_000,
    );

    const removed = await nexus(['rm', 'cli/piped']);
    expect(removed).toMatchObject({ code: 0, stdout: 'Deleted cli/piped (its branch nexus/piped stays).\n' });
    expect((await fleet.call('sessions.list', { workspace: ws })).sessions.map((x) => x.name)).not.toContain('piped');
    const again = await nexus(['rm', 'cli/piped']);
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/^nexus: .*piped.* \(not_found\)\n$/);
  }, 600_000);

  it('lists a permission request under what needs you; allow lets the tool run, deny --note tells the agent why', async () => {
    const marker = `/tmp/nexus-cli-${randomBytes(4).toString('hex')}`;
    const s = await fleet.createSession(ws, { name: 'asks', initialMessage: 'create the marker files' });
    fleet.script(
      s.id,
      { toolUse: { name: 'Bash', input: { command: `touch ${marker}`, description: 'Create the marker' } } },
      { toolUse: { name: 'Bash', input: { command: `touch ${marker}-2`, description: 'Create another' } } },
      { text: 'Done.' },
    );
    const pending = async () =>
      (
        await readUntil(
          () => fleet.call('permissions.list', { sessionId: s.id }),
          (l) => l.requests.length > 0,
          180_000,
        )
      ).requests[0]!;
    const request = await pending();
    const listed = await nexus(['ls']);
    expect(listed.stdout).toMatch(/^ {2}cli\/asks {2}claude {2}Needs you {2}Permission needed: Bash/m);
    expect(listed.stdout).toMatch(/^Needs you:\n {2}- cli\/asks — Permission needed: Bash \(since /);
    expect(listed.stdout).toContain(`  ${request.id}  cli/asks  Bash  {"command":"touch ${marker}"`);
    const json = JSON.parse((await nexus(['ls', '--json'])).stdout) as FleetListing;
    expect(json.permissionRequests).toEqual([expect.objectContaining({ id: request.id, session: 'cli/asks' })]);
    expect(json.needsYou).toEqual([
      expect.objectContaining({ kind: 'session', session: expect.objectContaining({ sessionName: 'asks' }) }),
    ]);

    const allowed = await nexus(['allow', request.id]);
    expect(allowed).toMatchObject({ code: 0, stdout: `Allowed Bash (request ${request.id}).\n` });
    await waitFor(async () => (await fleet.sh(ws, `test -e ${marker}`)).exitCode === 0, 'the allowed command to run');

    const second = await pending();
    expect(second.id).not.toBe(request.id);
    const denied = await nexus(['deny', second.id, '--note', 'one marker is enough']);
    expect(denied).toMatchObject({ code: 0, stdout: `Denied Bash (request ${second.id}), with your note.\n` });
    await waitFor(
      () => fleet.turnsOf(s.id).some((t) => JSON.stringify(t.body.messages).includes('one marker is enough')),
      'the note in the tool result the model gets',
      120_000,
    );
    expect((await fleet.sh(ws, `test -e ${marker}-2`)).exitCode).not.toBe(0);
    const gone = await nexus(['allow', second.id]);
    expect(gone.code).toBe(1);
  }, 600_000);

  it('attaches a real terminal: the screen arrives, typed keys reach the agent, Ctrl-b d detaches and the session runs on', async () => {
    const s = await fleet.createSession(ws, { name: 'attached', initialMessage: 'wait for me' });
    // One word: tmux draws the spaces between words as cursor moves.
    const ready = `Standing-by-${randomBytes(3).toString('hex')}`;
    fleet.script(s.id, { text: ready });
    await fleet.waitForSession(s.id, (x) => x.agentState === 'idle' && fleet.turnsOf(s.id).length > 0);
    const viewers = async () =>
      (await fleet.sh(ws, "tmux list-sessions -F '#{session_name}'")).stdout
        .split('\n')
        .filter((n) => n.startsWith('nexus-view-'));

    const term = inPty([process.execPath, ...entry, 'attach', 'cli/attached', '--data-dir', fleet.dataDir], {
      cwd: repoRoot,
      cols: 120,
      rows: 40,
    });
    try {
      await term.waitFor(ready, 90_000);
      expect(await viewers()).toHaveLength(1);
      // The pty's size reached the viewer's tmux client.
      expect((await fleet.sh(ws, "tmux list-clients -F '#{client_width}x#{client_height}'")).stdout).toContain(
        '120x40',
      );
      const typed = `typed in the attached terminal ${randomBytes(3).toString('hex')}`;
      term.write(typed);
      await waitFor(async () => (await fleet.pane(s.id)).includes(typed), 'the keys in the agent’s input', 60_000);
      term.write('\r');
      await waitFor(
        () => fleet.turnsOf(s.id).some((t) => userTexts(t.body.messages ?? []).includes(typed)),
        'the typed line as the operator’s turn',
        120_000,
      );
      term.write('\u0002d');
      expect(await term.exited).toBe(0);
      expect(term.output()).toContain('[detached from cli/attached; it keeps running]');
    } finally {
      term.kill();
    }
    await waitFor(async () => (await viewers()).length === 0, 'the viewer gone after the detach');
    const after = await fleet.call('sessions.get', { session: s.id });
    expect(after.status).toBe('running');
    expect(after.agentState).not.toBe('exited');
    expect((await nexus(['send', 'cli/attached', 'still there?'])).code).toBe(0);
  }, 600_000);
});
