import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inspectJson } from '../../../test/helpers/docker';
import { startRealAgentFleet, type RealAgentFleet } from '../../../test/helpers/real-agent-fleet';
import { sessionNameOf } from '../../../test/helpers/responses-api';
import { waitFor } from '../../../test/helpers/wait';

/**
 * The model gateway with the real Claude Code and Codex CLIs through a whole Nexus on the default bridge, against the
 * scripted stand-ins: no real key anywhere in the container, the ledger equal to what the stand-ins reported request
 * by request, and a budget that stops a session with at most the one request in flight over.
 */
describe('the model gateway with the real CLIs', () => {
  let fleet: RealAgentFleet;
  const ws = 'gateway';

  beforeAll(async () => {
    fleet = await startRealAgentFleet();
    await fleet.createWorkspace(ws);
  }, 600_000);
  afterAll(async () => fleet?.dispose(), 180_000);

  /** The stand-ins report 10 input and 5 output tokens for every answer (model-api.ts, responses-api.ts). */
  const PER_ANSWER = { input: 10, output: 5 };

  it('runs both kinds through it: no real key in the container, the ledger equal to the stand-ins, request by request', async () => {
    const { api, codexApi, canary, codexCanary } = fleet.env;
    const claude = await fleet.createSession(ws, { name: 'ledger-claude', initialMessage: 'count me' });
    const codex = await fleet.createSession(ws, {
      name: 'ledger-codex',
      initialMessage: 'count me too',
      agent: 'codex',
    });
    await fleet.firstTurn(claude.id);
    await waitFor(() => codexApi.turns().find((r) => sessionNameOf(r) === 'ledger-codex'), 'the Codex turn', 240_000);
    await fleet.waitForSession(claude.id, 'idle', 120_000);
    await fleet.waitForSession(codex.id, 'idle', 120_000);

    // Every answer the stand-ins gave with usage is one ledger row of its session, with exactly its tokens.
    const claudeRows = await waitFor(async () => {
      const u = await fleet.call('usage.get', { session: claude.id });
      return u.totals.requests > 0 ? u : null;
    }, 'the Claude session in the ledger');
    const answered = api.requests.filter(
      (r) => r.path === '/v1/messages' && r.headers['x-claude-code-session-id'] === fleet.agentSessionId(claude.id),
    );
    expect(claudeRows.totals).toMatchObject({
      requests: answered.length,
      input: answered.length * PER_ANSWER.input,
      output: answered.length * PER_ANSWER.output,
    });
    const codexUsage = await fleet.call('usage.get', { session: codex.id });
    const codexAnswered = codexApi.requests.filter((r) => r.path === '/v1/responses');
    expect(codexUsage.totals.requests).toBe(codexAnswered.length);
    expect(codexUsage.totals.output).toBe(codexAnswered.length * PER_ANSWER.output);

    // The real keys reached the stand-ins and nothing else: not the container's files, processes, panes or inspect.
    expect(api.sawCredential(canary)).toBe(true);
    expect(codexApi.sawCredential(codexCanary)).toBe(true);
    const w = await fleet.call('workspaces.get', { workspace: ws });
    const files = await fleet.sh(
      ws,
      `grep -rlF -e '${canary}' -e '${codexCanary}' /home /tmp /run /workspace /var/tmp /etc 2>/dev/null; true`,
    );
    const procs = await fleet.sh(ws, 'for p in /proc/[0-9]*; do cat $p/cmdline $p/environ 2>/dev/null; echo; done');
    expect(procs.stdout).toContain('claude');
    const places = {
      files: files.stdout,
      processes: procs.stdout,
      inspect: inspectJson(w.containerId!),
      panes: (await fleet.pane(claude.id)) + (await fleet.pane(codex.id)),
      tmpfs: (await fleet.sh(ws, 'ls -la /run/nexus; cat /run/nexus/* 2>/dev/null; true')).stdout,
    };
    for (const [where, text] of Object.entries(places)) {
      expect(text.includes(canary), where).toBe(false);
      expect(text.includes(codexCanary), where).toBe(false);
    }
    // What the container holds instead: each session's own gateway credential, 0600, useless elsewhere.
    const key = await fleet.sh(ws, `stat -c %a /tmp/nexus-sessions/${claude.id}/gateway-key`);
    expect(key.stdout.trim()).toBe('600');
  }, 600_000);

  it('stops a session at its budget: at most the one request in flight over, Needs you says why, raising it goes on', async () => {
    const { api } = fleet.env;
    const s = await fleet.createSession(ws, { name: 'budget', initialMessage: 'first turn' });
    await fleet.firstTurn(s.id);
    await fleet.waitForSession(s.id, 'idle', 120_000);
    const used = (await fleet.call('usage.get', { session: s.id })).totals.total;
    // One token of room: the next answer goes through (it started under the cap), the one after is refused.
    await fleet.call('usage.setBudget', { scope: { session: s.id }, maxTokens: used + 1 });
    const before = fleet.turnsOf(s.id).length;
    fleet.script(
      s.id,
      { toolUse: { name: 'Bash', input: { command: 'true', description: 'a step' } } },
      { text: 'never' },
    );
    await fleet.sendWhenAnnounced(s.id, 'go on');
    const stopped = await fleet.waitForSession(s.id, (x) => (x.agentMessage ?? '').includes('Budget reached'), 180_000);
    expect(stopped.agentState).toBe('waiting_input');
    // The stand-in saw at most one more conversation request than the cap allowed.
    expect(fleet.turnsOf(s.id).length - before).toBeLessThanOrEqual(1);
    const over = await fleet.call('usage.get', { session: s.id });
    expect(over.totals.total).toBeGreaterThanOrEqual(used + 1);
    expect(over.totals.total - used).toBeLessThanOrEqual(15);
    expect(over.budgets).toEqual([{ scope: 'session', maxTokens: used + 1, used: over.totals.total }]);
    // The CLI showed the gateway's refusal as the provider's error.
    await waitFor(
      async () => ((await fleet.pane(s.id)).includes('Budget reached in Nexus') ? true : null),
      'the refusal on the pane',
    );
    // Raising the cap: the next message goes through.
    await fleet.call('usage.setBudget', { scope: { session: s.id }, maxTokens: null });
    const now = fleet.turnsOf(s.id).length;
    await fleet.sendWhenAnnounced(s.id, 'and now?');
    await waitFor(
      () => (fleet.turnsOf(s.id).length > now ? true : null),
      'a request after the cap was lifted',
      120_000,
    );
    expect(api.sawCredential(fleet.env.canary)).toBe(true);
  }, 600_000);
});
