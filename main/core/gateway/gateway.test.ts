import { request } from 'node:http';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDrivers } from '../../../test/helpers/agent-drivers';
import { startModelApi, type ModelApi } from '../../../test/helpers/model-api';
import { startResponsesApi, type ResponsesApi } from '../../../test/helpers/responses-api';
import { tempDir } from '../../../test/helpers/temp-dir';
import { EventBus } from '../events';
import { createLogger } from '../log';
import { Redactor } from '../redact';
import { migrations } from '../store/migrations';
import { openStore, type Db } from '../store/open';
import { ModelGateway } from './gateway';

const KEY = 'sk-ant-api03-gateway-canary-0000000000';
const OPENAI = 'sk-proj-gateway-canary-00000000000000';

/** A POST to the gateway as an agent's CLI makes it; the whole answer and when each chunk came. */
function post(url: string, path: string, headers: Record<string, string>, body: unknown) {
  return new Promise<{ status: number; text: string; chunks: number }>((resolve, reject) => {
    const req = request(`${url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
    });
    req.on('response', (res) => {
      let text = '';
      let chunks = 0;
      res.on('data', (c: Buffer) => {
        chunks += 1;
        text += c.toString('utf8');
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text, chunks }));
    });
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
}

describe('the model gateway', () => {
  const dir = tempDir();
  let db: Db;
  let anthropic: ModelApi;
  let openai: ResponsesApi;
  let gateway: ModelGateway;
  let claudeCredential: string;
  let codexCredential: string;
  const waiting: { sessionId: string; message: string }[] = [];
  const cleared: string[] = [];
  const redactor = new Redactor();

  beforeAll(async () => {
    anthropic = await startModelApi({ host: '127.0.0.1' });
    openai = await startResponsesApi({ host: '127.0.0.1' });
    db = openStore(join(dir.path, 'nexus.db'), migrations);
    db.exec(`
      INSERT INTO workspaces (id, name, repo_url, volume, status, created_at, updated_at)
        VALUES ('w1', 'ws', 'https://example.com/r.git', 'v1', 'running', 't', 't');
      INSERT INTO sessions (id, workspace_id, name, branch, status, agent_state, agent_session_id, created_at, updated_at, agent)
        VALUES ('s1', 'w1', 'one', 'nexus/one', 'running', 'idle', 'a1', 't', 't', 'claude'),
               ('s2', 'w1', 'two', 'nexus/two', 'running', 'idle', 'a2', 't', 't', 'codex');
    `);
    const log = createLogger({ redactor });
    gateway = new ModelGateway({
      db,
      drivers: testDrivers(undefined, { claude: { baseUrl: anthropic.url }, codex: { baseUrl: openai.url } }),
      log,
      redactor,
      events: new EventBus(redactor, log),
      credentialFor: (_ws, kind) =>
        Promise.resolve(
          kind === 'claude'
            ? { kind: 'anthropic_api_key' as const, value: KEY }
            : { kind: 'openai_api_key' as const, value: OPENAI },
        ),
      hasCredential: () => true,
      taskOf: () => null,
      budgetReached: (sessionId, message) => waiting.push({ sessionId, message }),
      budgetCleared: (sessionId) => cleared.push(sessionId),
      config: { port: 0 },
    });
    await gateway.listen('127.0.0.1');
    claudeCredential = gateway.issue({ sessionId: 's1', workspaceId: 'w1', agent: 'claude' });
    codexCredential = gateway.issue({ sessionId: 's2', workspaceId: 'w1', agent: 'codex' });
  });
  afterAll(async () => {
    await gateway?.close();
    await anthropic?.close();
    await openai?.close();
    db?.close();
    dir.remove();
  });

  const claudeUrl = () => gateway.urlFor('claude') ?? '';
  const messages = {
    model: 'm',
    stream: true,
    max_tokens: 10,
    messages: [{ role: 'user', content: 'hi' }],
    tools: [{ name: 'Bash' }],
  };

  it('swaps the session credential for the real key, streams the answer back and counts its tokens once', async () => {
    const r = await post(claudeUrl(), '/v1/messages', { 'x-api-key': claudeCredential }, messages);
    expect(r.status).toBe(200);
    expect(r.text).toContain('message_stop');
    expect(anthropic.sawCredential(KEY)).toBe(true);
    expect(anthropic.sawCredential(claudeCredential)).toBe(false);
    // The stand-in reports 10 in, 5 out per answer; the ledger has exactly that, once.
    expect(gateway.usage.session('s1')).toMatchObject({ requests: 1, input: 10, output: 5, total: 15 });
    expect(gateway.usage.rows('s1')).toHaveLength(1);
  });

  it("hands a workspace's sessions its route (a remote engine's relay), refuses when it has no way, else this address", async () => {
    const local = gateway.urlFor('claude');
    gateway.routeWorkers((ws) =>
      ws === 'remote'
        ? Promise.resolve('http://10.201.0.1:4226')
        : ws === 'tls'
          ? Promise.reject(new Error('no way back'))
          : Promise.resolve(null),
    );
    try {
      for (const ws of ['remote', 'w1']) await gateway.route(ws);
      await expect(gateway.route('tls')).rejects.toThrow(/cannot reach Nexus's model gateway: no way back/);
      expect(gateway.urlFor('claude', 'remote')).toBe('http://10.201.0.1:4226/claude');
      expect(gateway.urlFor('claude', 'w1')).toBe(local);
      expect(gateway.urlFor('claude', 'never-routed')).toBe(local);
    } finally {
      gateway.routeWorkers(() => Promise.resolve(null));
    }
  });

  it('serves the Responses API for its kind with a Bearer, and counts its usage', async () => {
    const r = await post(
      gateway.urlFor('codex') ?? '',
      '/v1/responses',
      { authorization: `Bearer ${codexCredential}` },
      { model: 'm', stream: true, input: [{ role: 'user', content: [{ type: 'input_text', text: 'hi' }] }], tools: [] },
    );
    expect(r.status).toBe(200);
    expect(r.text).toContain('response.completed');
    expect(openai.sawCredential(OPENAI)).toBe(true);
    expect(gateway.usage.session('s2').requests).toBe(1);
  });

  it("refuses an unknown or revoked credential, another kind's path, and anything outside /<kind>/v1/", async () => {
    expect(
      (await post(claudeUrl(), '/v1/messages', { 'x-api-key': 'nxg_notissuedxxxxxxxxxxxxxxx' }, messages)).status,
    ).toBe(401);
    expect((await post(claudeUrl(), '/v1/messages', {}, messages)).status).toBe(401);
    // The Codex session's credential does not open Claude's path.
    expect(
      (await post(claudeUrl(), '/v1/messages', { authorization: `Bearer ${codexCredential}` }, messages)).status,
    ).toBe(401);
    expect((await post(claudeUrl(), '/../admin', { 'x-api-key': claudeCredential }, messages)).status).toBe(404);
    const other = gateway.issue({ sessionId: 's1', workspaceId: 'w1', agent: 'claude' });
    // A new run's credential replaces the old one.
    expect((await post(claudeUrl(), '/v1/messages', { 'x-api-key': claudeCredential }, messages)).status).toBe(401);
    claudeCredential = other;
    expect(redactor.text(`leak ${other}`)).not.toContain(other);
  });

  it('stops a session at its budget with the provider-shaped refusal, at most the one request in flight over', async () => {
    const before = gateway.usage.session('s1').total;
    gateway.setBudget('session', 's1', before + 1);
    const over = await post(claudeUrl(), '/v1/messages', { 'x-api-key': claudeCredential }, messages);
    expect(over.status).toBe(200); // still under when it started: it goes, and goes over by one answer
    const refused = await post(claudeUrl(), '/v1/messages', { 'x-api-key': claudeCredential }, messages);
    expect(refused.status).toBe(400);
    expect(JSON.parse(refused.text)).toMatchObject({
      type: 'error',
      error: { type: 'invalid_request_error', message: expect.stringContaining('Budget reached in Nexus') },
    });
    expect(waiting.at(-1)).toMatchObject({ sessionId: 's1', message: expect.stringContaining('Budget reached') });
    const seen = anthropic.turns().length;
    // Raising the cap lets it go on, and says so once (the session is resumed).
    expect(cleared).toEqual([]);
    gateway.setBudget('session', 's1', before + 1000);
    expect(cleared).toEqual(['s1']);
    expect((await post(claudeUrl(), '/v1/messages', { 'x-api-key': claudeCredential }, messages)).status).toBe(200);
    expect(anthropic.turns().length).toBe(seen + 1);
  });

  it('answers 502 in the provider’s shape when the upstream is down, and counts nothing', async () => {
    const down = new ModelGateway({
      db,
      drivers: testDrivers(undefined, { claude: { baseUrl: 'http://127.0.0.1:1' } }),
      log: createLogger({ redactor }),
      redactor,
      events: new EventBus(redactor, createLogger({ redactor })),
      credentialFor: () => Promise.resolve({ kind: 'anthropic_api_key' as const, value: KEY }),
      hasCredential: () => true,
      taskOf: () => null,
      budgetReached: () => undefined,
      budgetCleared: () => undefined,
      config: { port: 0 },
    });
    await down.listen('127.0.0.1');
    const before = down.usage.session('s1').requests;
    const r = await post(down.urlFor('claude') ?? '', '/v1/messages', { 'x-api-key': claudeCredential }, messages);
    await down.close();
    expect(r.status).toBe(502);
    expect(JSON.parse(r.text).error.message).toMatch(/could not reach the model provider/);
    expect(r.text).not.toContain(KEY);
    expect(down.usage.session('s1').requests).toBe(before);
  });

  it('keeps its port in the data dir so a restarted core listens where running CLIs send, and never fails on a taken one', async () => {
    const portFile = join(dir.path, 'gateway-port');
    const make = (port: number) =>
      new ModelGateway({
        db,
        drivers: testDrivers(),
        log: createLogger({ redactor }),
        redactor,
        events: new EventBus(redactor, createLogger({ redactor })),
        credentialFor: () => Promise.resolve(null),
        hasCredential: () => false,
        taskOf: () => null,
        budgetReached: () => undefined,
        budgetCleared: () => undefined,
        config: { port },
        portFile,
      });
    // The configured port is taken (by the gateway of this file): it listens on another and says which.
    const taken = Number(new URL(claudeUrl()).port);
    const first = make(taken);
    await first.listen('127.0.0.1');
    const chosen = Number(new URL(first.urlFor('claude') ?? '').port);
    expect(chosen).not.toBe(taken);
    expect(readFileSync(portFile, 'utf8').trim()).toBe(String(chosen));
    await first.close();
    // The next core on this data dir takes the kept port, whatever is configured.
    const again = make(0);
    await again.listen('127.0.0.1');
    expect(again.urlFor('claude')).toBe(`http://127.0.0.1:${chosen}/claude`);
    await again.close();
  });
});
