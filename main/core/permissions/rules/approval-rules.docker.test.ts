import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ModelReply } from '../../../../test/helpers/model-api';
import { toolNames } from '../../../../test/helpers/model-api';
import { responseToolNames, sessionNameOf, type ResponsesRequest } from '../../../../test/helpers/responses-api';
import { startRealAgentFleet, type RealAgentFleet } from '../../../../test/helpers/real-agent-fleet';
import { readUntil, waitFor } from '../../../../test/helpers/wait';

/**
 * Approval rules with the real pinned CLIs through one whole Nexus (docs/permissions.md): Claude Code's
 * PermissionRequest hook and Codex's PreToolUse gate both reach the rules in core. A call an allow rule matches
 * runs with no Needs you; `git push` still asks with an allow-all rule present; a grant "for the session" ends with
 * the session; no session is offered a tool that changes a rule, and one it names anyway changes nothing.
 */
describe('approval rules with the real agent CLIs', () => {
  let fleet: RealAgentFleet;
  const ws = 'rules';
  const codexScripts = new Map<string, ModelReply[]>();
  const codexTurns = (name: string): ResponsesRequest[] =>
    fleet.env.codexApi.turns().filter((r) => sessionNameOf(r) === name);
  const pending = (sessionId: string) =>
    readUntil(
      () => fleet.call('permissions.list', { sessionId }),
      (l) => l.requests.length > 0,
      90_000,
    ).then((l) => l.requests[0]!);
  const exists = async (path: string): Promise<boolean> => (await fleet.sh(ws, `test -e ${path}`)).exitCode === 0;
  const ownRules = async () =>
    (await fleet.call('rules.list', { workspace: ws })).rules.filter((r) => r.scope !== 'default');

  beforeAll(async () => {
    fleet = await startRealAgentFleet();
    fleet.env.codexApi.onTurn((r) => codexScripts.get(sessionNameOf(r) ?? '')?.shift() ?? { text: 'OK.' });
    await fleet.createWorkspace(ws);
  }, 600_000);
  afterAll(async () => fleet?.dispose(), 180_000);

  it('Claude Code: an allowed call runs unasked; git push asks despite allow-all; a session grant ends with its session', async () => {
    const tag = randomBytes(3).toString('hex');
    const s = await fleet.createSession(ws, { name: `c-${tag}`, initialMessage: 'make the marker, then push' });
    const wt = `/workspace/.nexus-worktrees/c-${tag}`;
    fleet.script(
      s.id,
      { toolUse: { name: 'Bash', input: { command: `touch marker-${tag}`, description: 'Make the marker' } } },
      { toolUse: { name: 'Bash', input: { command: 'node -e 1', description: 'Run node' } } },
      { toolUse: { name: 'Bash', input: { command: 'node -e 1', description: 'Run node again' } } },
      { toolUse: { name: 'Bash', input: { command: 'git push origin HEAD', description: 'Push' } } },
      { text: 'Done.' },
    );
    // 1. `touch` inside the worktree: the default set allows it, so it runs with nobody asked.
    await waitFor(async () => (await exists(`${wt}/marker-${tag}`)) || null, 'the allowed touch', 180_000);
    const decisions = await fleet.call('rules.decisions', { sessionId: s.id });
    expect(decisions.saved).toBe(1);
    expect(decisions.decisions[0]).toMatchObject({ decision: 'allow', toolName: 'Bash' });
    expect(decisions.decisions[0]!.rule).toMatch(/allow shell inside:touch/);
    // 2. `node -e 1` has no rule: it asks; the operator grants it for the session (the narrowest rule, shown first).
    const asked = await pending(s.id);
    expect(asked.askedBy).toBeNull();
    const { draft } = await fleet.call('rules.draft', { requestId: asked.id });
    expect(draft?.text).toBe('allow shell inside:node -e 1');
    const { rule } = await fleet.call('rules.grant', { requestId: asked.id, grant: 'session' });
    expect(rule).toMatchObject({ scope: 'session', sessionId: s.id, pattern: 'inside:node -e 1' });
    // 3. The same call again: the grant allows it. 4. With allow-all in the workspace, git push still asks.
    await fleet.call('rules.set', { scope: 'workspace', workspace: ws, action: 'allow', tool: 'any', pattern: '*' });
    const push = await readUntil(
      () => fleet.call('permissions.list', { sessionId: s.id }),
      (l) => l.requests.some((r) => JSON.stringify(r.toolInput).includes('git push')),
      120_000,
    ).then((l) => l.requests.find((r) => JSON.stringify(r.toolInput).includes('git push'))!);
    expect(push.askedBy).toMatch(/ask shell git push/);
    expect((await fleet.call('sessions.get', { session: s.id })).agentState).toBe('waiting_permission');
    expect((await fleet.call('rules.decisions', { sessionId: s.id })).saved).toBe(2);
    await fleet.call('permissions.decide', { id: push.id, behavior: 'deny', note: 'not from a test' });
    await fleet.waitForSession(s.id, 'idle');
    const activity = await fleet.call('activity.list', { operation: 'permissions.auto', limit: 50 });
    expect(activity.entries.filter((e) => e.target?.includes(s.id) ?? true).length).toBeGreaterThanOrEqual(2);
    for (const r of await ownRules()) if (r.tool === 'any') await fleet.call('rules.remove', { id: r.id });
    // 5. The session goes: its grant goes with it.
    await fleet.call('sessions.delete', { session: s.id, deleteBranch: true });
    expect((await fleet.call('rules.list', { sessionId: s.id })).rules.some((r) => r.id === rule.id)).toBe(false);
    expect(await ownRules()).toEqual([]);
  }, 420_000);

  it('Codex: an allowed call passes its gate unasked, git push asks despite allow-all, and node -e 1 is asked again', async () => {
    const tag = randomBytes(3).toString('hex');
    const name = `x-${tag}`;
    const wt = `/workspace/.nexus-worktrees/${name}`;
    codexScripts.set(name, [
      { toolUse: { name: 'exec_command', input: { cmd: `touch codex-marker-${tag}` } } },
      { toolUse: { name: 'exec_command', input: { cmd: 'node -e 1' } } },
      { toolUse: { name: 'exec_command', input: { cmd: 'git push origin HEAD' } } },
      { text: 'Done.' },
    ]);
    await fleet.call('rules.set', {
      scope: 'workspace',
      workspace: ws,
      action: 'allow',
      tool: 'shell',
      pattern: 'touch',
    });
    const s = await fleet.createSession(ws, { name, initialMessage: 'make the marker', agent: 'codex' });
    await waitFor(async () => (await exists(`${wt}/codex-marker-${tag}`)) || null, 'the allowed touch', 240_000);
    expect((await fleet.call('rules.decisions', { sessionId: s.id })).decisions[0]?.rule).toMatch(/allow shell/);
    // The Claude session's grant of `node -e 1` went with it: this session is asked.
    const nodeCall = await pending(s.id);
    expect(JSON.stringify(nodeCall.toolInput)).toContain('node -e 1');
    await fleet.call('rules.set', { scope: 'global', action: 'allow', tool: 'any', pattern: '*' });
    await fleet.call('permissions.decide', { id: nodeCall.id, behavior: 'allow' });
    const push = await readUntil(
      () => fleet.call('permissions.list', { sessionId: s.id }),
      (l) => l.requests.some((r) => JSON.stringify(r.toolInput).includes('git push')),
      120_000,
    ).then((l) => l.requests.find((r) => JSON.stringify(r.toolInput).includes('git push'))!);
    expect(push.askedBy).toMatch(/ask shell git push/);
    await fleet.call('permissions.decide', { id: push.id, behavior: 'deny' });
    await waitFor(() => codexTurns(name).length >= 4 || null, 'the turn after the denied push', 120_000);
    for (const r of await ownRules()) await fleet.call('rules.remove', { id: r.id });
  }, 420_000);

  it("Codex 0.169's own tools: each it runs in the container reaches the rules (and is asked); web_search and write_stdin do not", async () => {
    const name = `t-${randomBytes(3).toString('hex')}`;
    const gated: [string, string, Record<string, unknown>][] = [
      [
        'request_user_input',
        'request_user_input',
        {
          questions: [
            {
              id: 'q',
              header: 'Q',
              question: 'Which?',
              options: [
                { label: 'a', description: 'a' },
                { label: 'b', description: 'b' },
              ],
            },
          ],
        },
      ],
      ['mcp__codex_tui__create_thread', 'mcp__codex_tui__create_thread', { prompt: 'look at the tests' }],
      ['multi_agent_v1__spawn_agent', 'spawn_agent', { message: 'look at the tests' }],
      ['view_image', 'view_image', { path: '/etc/hostname' }],
      ['create_goal', 'create_goal', { objective: 'green tests' }],
    ];
    codexScripts.set(name, [
      { toolUse: { name: 'web_search', input: { query: 'vitest timers' } } },
      { toolUse: { name: 'write_stdin', input: { session_id: 4242, chars: 'y\n' } } },
      ...gated.map(([tool, , input]) => ({ toolUse: { name: tool, input } })),
      { text: 'Done.' },
    ]);
    const s = await fleet.createSession(ws, { name, initialMessage: 'use your own tools', agent: 'codex' });
    const inputOf = (n: number) =>
      waitFor(() => codexTurns(name)[n] ?? null, `Codex request ${n}`, 180_000).then((t) =>
        JSON.stringify(t.body.input),
      );
    // web_search is the provider's tool: Codex does not run a call of it at all. write_stdin writes to a process
    // an exec_command started (that one was gated); Codex raises no PreToolUse for it (measured on 0.169.0).
    expect(await inputOf(1)).toContain('unsupported call: web_search');
    expect(await inputOf(2)).toContain('write_stdin failed');
    expect((await fleet.call('permissions.list', { sessionId: s.id })).requests).toEqual([]);
    for (const [i, [, toolName]] of gated.entries()) {
      const req = await pending(s.id);
      expect(req.toolName).toBe(toolName);
      expect(req.askedBy).toBeNull();
      await fleet.call('permissions.decide', { id: req.id, behavior: 'deny', note: 'not in this test' });
      await waitFor(() => codexTurns(name)[3 + i] ?? null, `the request after ${toolName}`, 120_000);
    }
    expect((await fleet.call('rules.decisions', { sessionId: s.id })).saved).toBe(0);
  }, 300_000);

  it('offers no session a tool that changes a rule, and a rule tool a session names anyway changes nothing', async () => {
    const before = await ownRules();
    const s = await fleet.createSession(ws, { name: `m-${randomBytes(3).toString('hex')}`, initialMessage: 'widen' });
    fleet.script(
      s.id,
      {
        toolUse: {
          name: 'mcp__nexus__set_rule',
          input: { scope: 'global', action: 'allow', tool: 'any', pattern: '*' },
        },
      },
      { text: 'Tried.' },
    );
    await waitFor(() => fleet.turnsOf(s.id).length >= 2 || null, 'the answer to the rule call', 180_000);
    expect(JSON.stringify(fleet.turnsOf(s.id)[1]!.body.messages)).toMatch(/set_rule|No such tool|not available/i);
    expect(await ownRules()).toEqual(before);
    // No model of either kind was ever offered a rule tool (Claude's tool list, Codex's mcp__nexus namespace).
    for (const t of fleet.env.api.turns()) expect(toolNames(t).filter((n) => /rule/i.test(n))).toEqual([]);
    // What Codex 0.169 offers its model, on the record for docs/permissions.md ("Codex 0.169's own tools").
    const offered = new Set(fleet.env.codexApi.turns().flatMap((t) => responseToolNames(t)));
    console.info(`codex offers: ${[...offered].sort().join(', ')}`);
    for (const t of fleet.env.codexApi.turns()) {
      expect(responseToolNames(t).filter((n) => /rule/i.test(n))).toEqual([]);
      expect(JSON.stringify(t.body.tools ?? [])).not.toMatch(/set_rule|list_rules/);
    }
    await fleet.call('sessions.delete', { session: s.id, deleteBranch: true });
  }, 300_000);
});
