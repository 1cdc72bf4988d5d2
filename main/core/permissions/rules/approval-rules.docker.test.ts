import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ModelReply } from '../../../../test/helpers/model-api';
import { toolNames } from '../../../../test/helpers/model-api';
import {
  exampleOf,
  geminiFunctionResponses,
  geminiToolNames,
  geminiUserTexts,
  type GeminiRequest,
} from '../../../../test/helpers/gemini-api';
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
 * Approval rules with the real pinned CLIs through one whole Nexus (docs/permissions.md): Claude Code's
 * PermissionRequest hook, Codex's PreToolUse gate and Gemini CLI's ACP permission requests all reach the rules in core. A call an allow rule matches
 * runs with no Needs you; `git push` still asks with an allow-all rule present; a grant "for the session" ends with
 * the session; no session is offered a tool that changes a rule, and one it names anyway changes nothing.
 */
describe('approval rules with the real agent CLIs', () => {
  let fleet: RealAgentFleet;
  const ws = 'rules';
  const codexScripts = new Map<string, ModelReply[]>();
  /** Codex replies by what a request holds, before any script: a marker its last user text starts with picks one. */
  const codexResponders = new Map<string, (r: ResponsesRequest) => ModelReply>();
  /** Gemini replies per marker in the session's first prompt. */
  const geminiResponders = new Map<string, (r: GeminiRequest) => ModelReply | Promise<ModelReply>>();
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
    fleet.env.codexApi.onTurn((r) => {
      const last = userInputTexts(r.body.input).at(-1) ?? '';
      const by = [...codexResponders].find(([m]) => last.startsWith(m))?.[1];
      return by?.(r) ?? codexScripts.get(sessionNameOf(r) ?? '')?.shift() ?? { text: 'OK.' };
    });
    fleet.env.geminiApi.onTurn((r) => {
      const texts = geminiUserTexts(r);
      return [...geminiResponders].find(([m]) => texts.some((t) => t.includes(m)))?.[1](r) ?? { text: 'OK.' };
    });
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

  it('Gemini CLI (ACP): an allowed call runs unasked, a session grant is used and goes with its session, git push asks despite allow-all, no rule tool offered', async () => {
    const tag = randomBytes(3).toString('hex');
    const marker = `gemini-rules-${tag}`;
    const wt = `/workspace/.nexus-worktrees/g-${tag}`;
    const before = await ownRules();
    let pushMayCome!: () => void;
    const allowAllSet = new Promise<void>((resolve) => (pushMayCome = resolve));
    const shell = (command: string): ModelReply => ({
      toolUse: { name: 'run_shell_command', input: { command, description: 'as asked' } },
    });
    // One step per tool result the request carries: each call waits for the one before it.
    geminiResponders.set(marker, async (r) => {
      const step = geminiFunctionResponses(r).length;
      if (step === 0) return shell(`touch gemini-marker-${tag}`);
      if (step === 1 || step === 2) return shell('node -e 1');
      if (step === 3) {
        await allowAllSet;
        return shell('git push origin HEAD');
      }
      return { text: 'Done.' };
    });
    const s = await fleet.createSession(ws, { name: `g-${tag}`, initialMessage: `${marker}: go`, agent: 'gemini' });
    // 1. `touch` inside the worktree: the default set allows it, so it runs with nobody asked.
    await waitFor(
      async () => {
        if (await exists(`${wt}/gemini-marker-${tag}`)) return true;
        const pendingNow = (await fleet.call('permissions.list', { sessionId: s.id })).requests.map((r) => r.toolName);
        const seen = fleet.env.geminiApi.turns().filter((t) => geminiUserTexts(t).some((x) => x.includes(marker)));
        throw new Error(`${seen.length} model requests of the session, asked: ${JSON.stringify(pendingNow)}`);
      },
      'the allowed touch',
      360_000,
    );
    // 2. `node -e 1` has no rule: asked; granted for the session (the narrowest rule, shown first).
    const asked = await pending(s.id);
    expect(asked.toolName).toBe('Bash');
    const { draft } = await fleet.call('rules.draft', { requestId: asked.id });
    expect(draft?.text).toBe('allow shell inside:node -e 1');
    const { rule } = await fleet.call('rules.grant', { requestId: asked.id, grant: 'session' });
    // 3. The same call again runs by the grant (the request after it waits until allow-all is set, below).
    const decisions = await readUntil(
      () => fleet.call('rules.decisions', { sessionId: s.id }),
      (d) => d.saved >= 2,
      120_000,
    );
    expect(decisions.decisions.map((d) => d.rule)).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^allow shell inside:touch/),
        expect.stringMatching(/^allow shell inside:node -e 1 /),
      ]),
    );
    expect(decisions.saved).toBe(2);
    // 4. With allow-all in the workspace, git push still asks, naming the rule that insists.
    await fleet.call('rules.set', { scope: 'workspace', workspace: ws, action: 'allow', tool: 'any', pattern: '*' });
    pushMayCome();
    const push = await readUntil(
      () => fleet.call('permissions.list', { sessionId: s.id }),
      (l) => l.requests.some((r) => JSON.stringify(r.toolInput).includes('git push')),
      120_000,
    ).then((l) => l.requests.find((r) => JSON.stringify(r.toolInput).includes('git push'))!);
    expect(push.askedBy).toMatch(/ask shell git push/);
    await fleet.call('permissions.decide', { id: push.id, behavior: 'deny', note: 'not from a test' });
    for (const r of await ownRules()) if (r.tool === 'any') await fleet.call('rules.remove', { id: r.id });
    // 5. The session goes: its grant goes with it.
    await fleet.call('sessions.delete', { session: s.id, deleteBranch: true });
    expect((await fleet.call('rules.list', {})).rules.some((r) => r.id === rule.id)).toBe(false);
    expect(await ownRules()).toEqual(before);
    // 6. No Gemini request offered the model a rule tool: a session cannot name one (Gemini CLI ends its turn on a
    // call of a tool it does not have), and core refuses rules.set to every MCP token (mcp/server.test.ts).
    const offered = fleet.env.geminiApi.turns().flatMap((t) => geminiToolNames(t));
    expect(offered.length).toBeGreaterThan(0);
    expect(offered.filter((n) => /rule/i.test(n))).toEqual([]);
  }, 420_000);

  it("Codex 0.169's grouped tools: every one of mcp__codex_tui and multi_agent_v1 reaches the rules, a sub-agent's own call too", async () => {
    const tag = randomBytes(3).toString('hex');
    const marker = `groups-${tag}`;
    const sub = `sub-${tag}`;
    const name = `k-${tag}`;
    /** The tools inside Codex's own groups, as the model is offered them, with the least input each accepts. */
    const grouped = (r: ResponsesRequest) =>
      (r.body.tools ?? [])
        .filter((t) => t.name === 'mcp__codex_tui' || t.name === 'multi_agent_v1')
        .flatMap((t) =>
          ((t.tools as { name: string; parameters?: unknown }[] | undefined) ?? []).map((x) => ({
            call: `${t.name}__${x.name}`,
            name: x.name,
            input: exampleOf(x.parameters) as Record<string, unknown>,
          })),
        )
        .filter((x) => x.name !== 'spawn_agent');
    // The sub-agent: its first user text is the spawn's message; it runs one command of its own.
    codexResponders.set(sub, (r) =>
      functionOutputs(r).length === 0
        ? { toolUse: { name: 'exec_command', input: { cmd: 'node -e 2' } } }
        : { text: 'Sub done.' },
    );
    codexResponders.set(marker, (r) => {
      const tools = grouped(r);
      const step = functionOutputs(r).length;
      if (step < tools.length) return { toolUse: { name: tools[step]!.call, input: tools[step]!.input } };
      if (step === tools.length)
        return { toolUse: { name: 'multi_agent_v1__spawn_agent', input: { message: `${sub}: check the tests` } } };
      return { text: 'Done.' };
    });
    const s = await fleet.createSession(ws, { name, initialMessage: `${marker}: use your groups`, agent: 'codex' });
    await fleet.call('rules.set', {
      scope: 'session',
      sessionId: s.id,
      action: 'allow',
      tool: 'other',
      pattern: 'spawn_agent',
    });
    const parent = () => codexTurns(name).filter((t) => userInputTexts(t.body.input).at(-1)?.startsWith(marker));
    const tools = grouped(await waitFor(() => parent()[0] ?? null, 'the first Codex request', 240_000));
    expect(tools.map((t) => t.name)).toEqual(expect.arrayContaining(['create_thread', 'send_input']));
    const seen: Record<string, string> = {};
    for (const [i, tool] of tools.entries()) {
      const next = await waitFor(
        async () => {
          const req = (await fleet.call('permissions.list', { sessionId: s.id })).requests[0];
          if (req) return { req };
          return parent().some((t) => functionOutputs(t).length > i) ? { req: null } : null;
        },
        `${tool.name} gated or answered`,
        120_000,
      );
      seen[tool.name] = next.req ? `gated as ${next.req.toolName}` : 'ran with no gate';
      if (next.req)
        await fleet.call('permissions.decide', { id: next.req.id, behavior: 'deny', note: 'not in this test' });
      await waitFor(
        () => parent().some((t) => functionOutputs(t).length > i) || null,
        `the answer to ${tool.name}`,
        120_000,
      );
    }
    console.info(`codex grouped tools: ${JSON.stringify(seen)}`);
    expect(Object.entries(seen).filter(([, v]) => !v.startsWith('gated'))).toEqual([]);
    // spawn_agent is allowed by the session's rule; the sub-agent's own exec_command reaches the same path.
    const subCall = await readUntil(
      () => fleet.call('permissions.list', { sessionId: s.id }),
      (l) => l.requests.some((r) => JSON.stringify(r.toolInput).includes('node -e 2')),
      180_000,
    ).then((l) => l.requests.find((r) => JSON.stringify(r.toolInput).includes('node -e 2'))!);
    expect(subCall.askedBy).toBeNull();
    expect((await fleet.call('rules.decisions', { sessionId: s.id })).decisions[0]?.rule).toBe(
      'allow other spawn_agent',
    );
    await fleet.call('permissions.decide', { id: subCall.id, behavior: 'deny', note: 'not in this test' });
    await fleet.call('sessions.delete', { session: s.id, deleteBranch: true });
  }, 600_000);

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
