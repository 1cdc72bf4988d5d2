import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ModelReply } from '../../../../test/helpers/model-api';
import { hostileCorpus } from '../../../../test/helpers/hostile-corpus';
import { inspectJson } from '../../../../test/helpers/docker';
import {
  functionOutputs,
  responseToolNames,
  sessionNameOf,
  userInputTexts,
  type ResponsesRequest,
} from '../../../../test/helpers/responses-api';
import { startRealAgentFleet, type RealAgentFleet } from '../../../../test/helpers/real-agent-fleet';
import { readUntil, waitFor } from '../../../../test/helpers/wait';

/**
 * The real pinned Codex CLI (0.169.0) through a whole Nexus on the default `nexus` bridge, against the scripted
 * Responses-API stand-in: unattended start, the prompt byte-exact, tool calls gated by the operator in Nexus, queued
 * messages, platform tools, and the canary OpenAI key nowhere but the stand-in's bearer header.
 */
/**
 * Codex itself turns CRLF into LF in a prompt it is given on its command line (measured on 0.169.0); Nexus hands
 * it over byte-exact (codex-launch.test.ts pins the argv). Every other prompt of the corpus arrives exactly as typed,
 * bare subcommand names (`doctor`, `mcp`, `update`), a lone `--`, flags and bidirectional controls included, except
 * that a text starting with `!` gets a leading newline (Codex would run it as a shell command: guardShellEscape).
 */
const asCodexSeesIt = (typed: string): string => (typed.startsWith('!') ? `\n${typed}` : typed).replace(/\r\n/g, '\n');

describe('the real Codex CLI through Nexus', () => {
  let fleet: RealAgentFleet;
  const ws = 'codex';
  /** Scripted replies per session name (Codex's requests name the session's worktree in their turn metadata). */
  const scripts = new Map<string, ModelReply[]>();
  const sessionOf = sessionNameOf;
  const turnsOf = (name: string): ResponsesRequest[] => fleet.env.codexApi.turns().filter((r) => sessionOf(r) === name);
  const script = (name: string, ...replies: ModelReply[]): void =>
    void scripts.set(name, [...(scripts.get(name) ?? []), ...replies]);

  beforeAll(async () => {
    fleet = await startRealAgentFleet();
    fleet.env.codexApi.onTurn((r) => scripts.get(sessionOf(r) ?? '')?.shift() ?? { text: 'OK.' });
    await fleet.createWorkspace(ws);
  }, 600_000);
  afterAll(async () => fleet?.dispose(), 180_000);

  it('starts unattended (no first-run screen) and the first turn is the typed prompt, byte-exact, for the hostile corpus', async () => {
    const batch = 5;
    const remove = (list: { id: string }[]) =>
      Promise.all(list.map((s) => fleet.call('sessions.delete', { session: s.id, deleteBranch: true })));
    // A batch is deleted while the next one's agents start (its deletes queue behind their launch on the workspace).
    let last: { id: string }[] = [];
    let removing: Promise<unknown> = Promise.resolve();
    try {
      for (let i = 0; i < hostileCorpus.length; i += batch) {
        const prompts = hostileCorpus.slice(i, i + batch);
        await removing; // two batches at most: the workspace's memory holds 12 sessions
        const sessions = await Promise.all(
          prompts.map((p, j) => fleet.createSession(ws, { name: `c${i + j}`, initialMessage: p, agent: 'codex' })),
        );
        removing = remove(last);
        last = sessions;
        for (const [j, s] of sessions.entries()) {
          expect(s.agent).toBe('codex');
          const turn = await waitFor(() => turnsOf(s.name)[0], `the first turn of ${s.name}`, 240_000);
          expect(userInputTexts(turn.body.input), `prompt ${i + j}`).toEqual([asCodexSeesIt(prompts[j]!)]);
        }
        const pane = await fleet.pane(sessions[0]!.id);
        expect(pane).not.toMatch(/Hooks need review|Sign in with ChatGPT|Do you trust|Update available|login/i);
        expect(pane).toContain('OpenAI Codex');
      }
    } finally {
      await removing;
      await remove(last);
    }
  }, 1_200_000);

  it("never puts the pinned Codex's variadic -i/--image before the prompt: its argv ends in -- and the prompt", async () => {
    // The binary in the worker takes any number of images after -i: a prompt after it would be read as an image.
    const help = await fleet.sh(ws, 'codex --help');
    expect(help.stdout).toMatch(/-i, --image <FILE>\.\.\./);
    const prompt = '-i looks like a flag';
    const s = await fleet.createSession(ws, { name: 'argv', initialMessage: prompt, agent: 'codex' });
    try {
      const turn = await waitFor(() => turnsOf('argv')[0], 'the first turn of argv', 240_000);
      expect(userInputTexts(turn.body.input)).toEqual([prompt]);
      const ps = await fleet.sh(ws, `for p in /proc/[0-9]*; do tr '\\0' '\\n' < $p/cmdline 2>/dev/null; echo ==; done`);
      const argvs = ps.stdout.split('==\n').map((a) => a.split('\n').filter(Boolean));
      const codex = argvs.find((a) => a.at(-1) === prompt && /(^|\/)codex$/.test(a[0] ?? ''));
      expect(codex, ps.stdout).toBeDefined();
      expect(codex!.slice(-2)).toEqual(['--', prompt]);
      expect(codex!.slice(0, -1).some((a) => a === '-i' || a === '--image')).toBe(false);
    } finally {
      await fleet.call('sessions.delete', { session: s.id, deleteBranch: true });
    }
  }, 300_000);

  it('gates a shell call: needs you in Nexus, Allow runs it; Deny with a note reaches the model and it never runs', async () => {
    const ran = `/tmp/codex-allowed-${randomBytes(4).toString('hex')}`;
    const denied = `/tmp/codex-denied-${randomBytes(4).toString('hex')}`;
    script(
      'gated',
      { toolUse: { name: 'exec_command', input: { cmd: `touch ${ran}` } } },
      { text: 'Ran it.' },
      { toolUse: { name: 'exec_command', input: { cmd: `touch ${denied}` } } },
      { text: 'Understood.' },
    );
    const s = await fleet.createSession(ws, { name: 'gated', initialMessage: 'make the marker', agent: 'codex' });
    const waiting = await fleet.waitForSession(s.id, 'waiting_permission');
    expect(waiting.agentMessage).toBe('Codex needs your permission to use Bash');
    expect((await fleet.call('attention.get', {})).counts.needs_you).toBe(1);
    // A message meanwhile approves nothing: Codex takes queued messages only when idle.
    const sent = await fleet.tool<{ status: string }>('send_message', { session: s.id, text: 'yes, run it' });
    expect(sent.status).toBe('queued');
    expect((await fleet.sh(ws, `test -e ${ran}`)).exitCode).not.toBe(0);
    const first = await readUntil(
      () => fleet.call('permissions.list', { sessionId: s.id }),
      (l) => l.requests.length > 0,
      60_000,
    );
    expect(JSON.stringify(first.requests[0]?.toolInput)).toContain(ran);
    await fleet.call('permissions.decide', { id: first.requests[0]!.id, behavior: 'allow' });
    await waitFor(
      async () => (await fleet.sh(ws, `test -e ${ran}`)).exitCode === 0 || null,
      'the allowed command',
      60_000,
    );

    // The queued message is its own turn once Codex is idle; the model answers it with the second call: denied.
    const queuedTurn = await waitFor(
      () => turnsOf('gated').find((t) => t.turnMetadata.turn_trigger === 'queue'),
      'the queued message as a turn',
      120_000,
    );
    expect(userInputTexts(queuedTurn.body.input)).toContain('yes, run it');
    const second = await readUntil(
      () => fleet.call('permissions.list', { sessionId: s.id }),
      (l) => l.requests.some((r) => JSON.stringify(r.toolInput).includes(denied)),
      120_000,
    );
    const req = second.requests.find((r) => JSON.stringify(r.toolInput).includes(denied))!;
    await fleet.call('permissions.decide', { id: req.id, behavior: 'deny', note: 'use the staging marker instead' });
    const after = await waitFor(
      () =>
        turnsOf('gated').find((t) =>
          functionOutputs(t).some((o) => String(o.output).includes('use the staging marker instead')),
        ),
      'the deny note in a model request',
      120_000,
    );
    expect(JSON.stringify(functionOutputs(after))).toContain('Denied by the operator in Nexus');
    await fleet.waitForSession(s.id, 'idle');
    expect((await fleet.sh(ws, `test -e ${denied}`)).exitCode).not.toBe(0);
    expect((await fleet.call('attention.get', {})).counts.needs_you).toBe(0);
  }, 600_000);

  it('calls a platform tool through nexus-mcp without a gate, and the memory waits in review', async () => {
    const lesson = `codex deploys of ${randomBytes(3).toString('hex')} need the staging flag`;
    const s = await fleet.createSession(ws, { name: 'tools', initialMessage: 'remember the lesson', agent: 'codex' });
    const first = await waitFor(() => turnsOf('tools')[0], 'the first turn', 240_000);
    const names = responseToolNames(first);
    // Codex offers an MCP server's tools inside one `namespace` tool named `mcp__<server>`.
    expect(names).toContain('mcp__nexus');
    const nexus = first.body.tools?.find((t) => t.name === 'mcp__nexus') as { tools?: { name: string }[] } | undefined;
    expect(nexus?.tools?.map((t) => t.name)).toContain('memory_propose');
    script(
      'tools',
      { toolUse: { name: 'mcp__nexus__memory_propose', input: { content: lesson, scope: 'project' } } },
      { text: 'Done.' },
    );
    await fleet.tool('send_message', { session: s.id, text: 'now propose it' });
    const queue = await readUntil(
      () => fleet.call('review.list', {}),
      (q) => q.memories.some((m) => m.content === lesson),
      240_000,
    );
    expect(queue.memories.filter((m) => m.content === lesson)).toHaveLength(1);
    expect((await fleet.call('permissions.list', { sessionId: s.id })).requests).toHaveLength(0);
  }, 600_000);

  it('resumes the same Codex thread after a core restart took its window, without repeating the first prompt', async () => {
    const first = 'the one and only first codex task';
    script('long', { text: 'First task done.' });
    const s = await fleet.createSession(ws, { name: 'long', initialMessage: first, agent: 'codex' });
    await fleet.waitForSession(s.id, (x) => x.agentState === 'idle' && turnsOf('long').length > 0);
    const before = turnsOf('long').length;
    const restartedAt = new Date().toISOString();
    await fleet.restart(async () => {
      expect((await fleet.sh(ws, 'tmux kill-window -t nexus:long')).exitCode).toBe(0);
    });
    await waitFor(
      async () =>
        (await fleet.sh(ws, 'tmux list-windows -t nexus -F "#{window_name}"')).stdout.split('\n').includes('long') ||
        null,
      'the relaunched window',
      120_000,
    );
    const back = await fleet.waitForSession(
      s.id,
      (x) =>
        x.agentState === 'idle' &&
        (x.agentStateAt ?? '') > restartedAt &&
        /Codex thread resumed/.test(x.agentMessage ?? ''),
    );
    expect(back.status).toBe('running');
    script('long', { text: 'Second task done.' });
    expect(
      (await fleet.tool<{ status: string }>('send_message', { session: s.id, text: 'now the second task' })).status,
    ).toBe('queued');
    const next = await waitFor(
      () =>
        turnsOf('long')
          .slice(before)
          .find((t) => userInputTexts(t.body.input).includes('now the second task')),
      'the turn after the restart',
      180_000,
    );
    expect(JSON.stringify(next.body.input)).toContain('First task done.');
    expect(userInputTexts(next.body.input).filter((t) => t === first)).toHaveLength(1);
    expect(
      turnsOf('long')
        .slice(before)
        .filter((t) => userInputTexts(t.body.input).at(-1) === first),
    ).toEqual([]);
  }, 600_000);

  it("runs the workspace's default agent when a create names none, and the workspace shows it", async () => {
    expect((await fleet.call('workspaces.get', { workspace: ws })).defaultAgent).toBe('claude');
    await fleet.call('sessions.setDefaultAgent', { workspace: ws, agent: 'codex' });
    try {
      expect((await fleet.call('workspaces.get', { workspace: ws })).defaultAgent).toBe('codex');
      expect(fleet.eventsText()).toMatch(/"workspaces\.changed".*"defaultAgent":"codex"/);
      const s = await fleet.createSession(ws, { name: 'by-default', initialMessage: 'the task for the default agent' });
      expect(s.agent).toBe('codex');
      const turn = await waitFor(() => turnsOf('by-default')[0], 'the first turn of the default agent', 240_000);
      expect(userInputTexts(turn.body.input)).toEqual(['the task for the default agent']);
    } finally {
      await fleet.call('sessions.setDefaultAgent', { workspace: ws, agent: 'claude' });
    }
  }, 300_000);

  it('signs Codex in through the gateway with the vault key, which shows nowhere but the stand-in bearer header', async () => {
    const { codexCanary, codexApi } = fleet.env;
    expect(codexApi.sawCredential(codexCanary)).toBe(true);
    const w = await fleet.call('workspaces.get', { workspace: ws });
    const { sessions } = await fleet.call('sessions.list', { workspace: ws });
    const panes = await Promise.all(sessions.map((s) => fleet.pane(s.id)));
    const proc = await fleet.sh(ws, 'for p in /proc/[0-9]*; do cat $p/cmdline $p/environ 2>/dev/null; echo; done');
    // What the container holds instead of a key: the session's own gateway credential, 0600; no Codex login.
    const key = await fleet.sh(ws, `stat -c %a /tmp/nexus-sessions/${sessions[0]!.id}/gateway-key`);
    expect(key.stdout.trim()).toBe('600');
    const login = await fleet.sh(ws, `test -e /home/nexus/.nexus-codex/${sessions[0]!.id}/auth.json`);
    expect(login.exitCode).not.toBe(0);
    const places = {
      inspect: inspectJson(w.containerId!),
      log: fleet.logText(),
      events: fleet.eventsText(),
      panes: panes.join('\n'),
      processes: proc.stdout,
      results: JSON.stringify([
        w,
        sessions,
        await fleet.tool('get_nexus_info', {}),
        await fleet.call('agent.get', {}),
        await fleet.call('secrets.list', {}),
      ]),
    };
    expect(proc.stdout).toContain('codex');
    for (const [where, text] of Object.entries(places)) expect(text.includes(codexCanary), where).toBe(false);
  }, 120_000);
});
