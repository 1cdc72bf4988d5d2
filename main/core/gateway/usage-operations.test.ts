import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OpOutput } from '../../../shared/contract';
import { coreDb, testCore } from '../../../test/helpers/core';
import { insertSession } from '../../../test/helpers/session-row';
import { operatorContext, type CallContext } from '../handlers';
import { createMcpServer } from '../mcp/server';
import { UsageStore } from './usage-store';

const reader: CallContext = { transport: 'mcp', caller: { kind: 'token', tokenId: 't', name: 'r', access: 'read' } };

/** The usage.* operations through a real core's dispatcher: its SQLite, the contract's parse, the audit log. */
describe('usage operations', () => {
  let made: Awaited<ReturnType<typeof testCore>>;
  const call = <T>(op: string, input: unknown, ctx = operatorContext('http')) =>
    made.core.dispatcher.call(op as never, input, ctx) as Promise<T>;
  const today = new Date();
  const day = today.toISOString().slice(0, 10);

  beforeAll(async () => {
    made = await testCore();
    const db = coreDb(made.core);
    db.prepare(
      `INSERT INTO workspaces (id, name, repo_url, volume, status, created_at, updated_at)
       VALUES ('w1', 'shop', 'https://example.com/r.git', 'v1', 'running', 't', 't')`,
    ).run();
    insertSession(db, { id: 's1', workspace_id: 'w1', name: 'claude-one', agent: 'claude' });
    insertSession(db, { id: 's2', workspace_id: 'w1', name: '=cmd', agent: 'codex' });
    const ledger = new UsageStore(db);
    const counts = (model: string | null, input: number, output: number) => ({
      model,
      input,
      output,
      cacheWrite: 0,
      cacheRead: 0,
    });
    const row = (requestId: string, sessionId: string, agent: string, c: ReturnType<typeof counts>) =>
      ledger.record({ requestId, sessionId, workspaceId: 'w1', agent, taskId: null, counts: c, at: today });
    await row('r1', 's1', 'claude', counts('claude-sonnet-4-5-20250929', 1_000_000, 100_000));
    await row('r2', 's1', 'claude', counts('claude-sonnet-4-5-20250929', 1_000_000, 0));
    await row('r3', 's2', 'codex', counts('gpt-5-codex', 2_000_000, 0));
    await row('r4', 's2', 'codex', counts('house-model-7', 500, 20));
    await ledger.close();
  });
  afterAll(async () => made.cleanup());

  it('reports a session’s tokens with their estimate, and today’s with the model that has no price', async () => {
    const one = await call<OpOutput<'usage.get'>>('usage.get', { session: 'shop/claude-one' });
    // 2M input at $3, 0.1M output at $15
    expect(one.estimate).toEqual({ usd: 7.5, unpricedModels: [], unpricedTokens: 0 });
    expect(one.totals).toMatchObject({ requests: 2, input: 2_000_000, output: 100_000 });
    const all = await call<OpOutput<'usage.get'>>('usage.get', {});
    expect(all.totals.requests).toBe(4);
    expect(all.estimate).toEqual({ usd: 10, unpricedModels: ['house-model-7'], unpricedTokens: 520 });
    const sessions = await call<OpOutput<'usage.sessions'>>('usage.sessions', {}, reader);
    expect(sessions.sessions.find((s) => s.sessionId === 's2')).toMatchObject({
      totals: { requests: 2, total: 2_000_520 },
      estimate: { usd: 2.5, unpricedModels: ['house-model-7'] },
    });
  });

  it('tells an MCP client today’s tokens and their estimate in get_nexus_info', async () => {
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await createMcpServer(made.core, { kind: 'token', tokenId: 't', name: 'r', access: 'read' }).connect(serverSide);
    const client = new Client({ name: 'in-memory', version: '1' });
    await client.connect(clientSide);
    const r = await client.callTool({ name: 'get_nexus_info', arguments: {} });
    await client.close();
    expect(r.structuredContent).toMatchObject({
      modelUseToday: { requests: 4 },
      modelCostTodayEstimate: { usd: 10, unpricedModels: ['house-model-7'], unpricedTokens: 520 },
    });
    expect(JSON.stringify(r.content)).toContain(
      '4100520 model tokens today in 4 requests, ≈ $10.00 (estimate; no price for house-model-7: 520 tokens not in it)',
    );
  });

  it('lets the operator price a model (audited), refuses a bad price or a reader and changes nothing', async () => {
    const before = await call<OpOutput<'usage.prices'>>('usage.prices', {});
    expect(before.prices.find((p) => p.model === 'claude-sonnet-4-5')).toMatchObject({ origin: 'list', input: 3 });
    const price = { input: 0.5, output: 1, cacheWrite: 0.5, cacheRead: 0.05 };
    for (const bad of [-1, Number.NaN, 1e9, Infinity])
      await expect(
        call('usage.setPrice', { model: 'house-model-7', price: { ...price, input: bad } }),
        String(bad),
      ).rejects.toMatchObject({ code: 'bad_request' });
    await expect(call('usage.setPrice', { model: '*', price })).rejects.toMatchObject({ code: 'bad_request' });
    await expect(call('usage.setPrice', { model: 'house-model-7', price }, reader)).rejects.toMatchObject({
      code: 'forbidden',
    });
    expect(await call('usage.prices', {})).toEqual(before);

    const after = await call<OpOutput<'usage.setPrice'>>('usage.setPrice', { model: 'house-model*', price });
    expect(after.prices.find((p) => p.model === 'house-model*')).toMatchObject({ origin: 'operator', ...price });
    const all = await call<OpOutput<'usage.get'>>('usage.get', {});
    expect(all.estimate).toEqual({ usd: 10.00027, unpricedModels: [], unpricedTokens: 0 });
    const audit = () =>
      coreDb(made.core)
        .prepare("SELECT actor, outcome FROM audit WHERE operation = 'usage.setPrice' AND outcome = 'ok'")
        .all();
    await expect.poll(audit).toEqual([{ actor: 'operator', outcome: 'ok' }]);
  });

  it('exports one CSV row per session and day, the names escaped', async () => {
    const out = await call<OpOutput<'usage.export'>>('usage.export', {});
    expect(out.rows).toBe(2);
    expect(out.filename).toBe(`nexus-usage-${day}.csv`);
    expect(out.csv.split('\r\n')).toEqual([
      'workspace,session,agent,task,day,input_tokens,output_tokens,cache_write_tokens,cache_read_tokens,requests,' +
        'estimate_usd,price_known',
      `shop,"'=cmd",codex,,${day},2000500,20,0,0,2,2.500270,true`,
      `shop,claude-one,claude,,${day},2000000,100000,0,0,2,7.500000,true`,
      '',
    ]);
  });
});
