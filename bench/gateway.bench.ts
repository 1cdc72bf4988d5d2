/**
 * The model gateway (docs/gateway.md) per model request: time to first byte and to the last chunk of a streamed
 * Anthropic answer through the gateway (credential check, the vault credential's headers, the pass-through, the
 * usage read and the ledger write), against the same answer straight from the upstream, in the same run. The upstream
 * is a bare node:http server streaming ten SSE events 1 ms apart. Goal: p50 <= +1 ms, p99 <= +5 ms to first byte.
 */
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { testDrivers } from '../test/helpers/agent-drivers';
import { EventBus } from '../main/core/events';
import { ModelGateway } from '../main/core/gateway';
import { createLogger } from '../main/core/log';
import { Redactor } from '../main/core/redact';
import { migrations } from '../main/core/store/migrations';
import { openStore } from '../main/core/store/open';
import { compare, measurePair, percentiles, type Benchmark } from './lib';

const event = (e: Record<string, unknown>): string => `event: ${String(e.type)}\ndata: ${JSON.stringify(e)}\n\n`;

/** A bare streaming upstream: message_start, eight deltas 1 ms apart, message_delta, message_stop. */
function upstream(): Promise<Server> {
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(
        event({ type: 'message_start', message: { model: 'm', usage: { input_tokens: 10, output_tokens: 1 } } }),
      );
      let i = 0;
      const tick = setInterval(() => {
        if (i++ < 8) return void res.write(event({ type: 'content_block_delta', delta: { text: 'x'.repeat(40) } }));
        clearInterval(tick);
        res.write(event({ type: 'message_delta', usage: { output_tokens: 5 } }));
        res.end(event({ type: 'message_stop' }));
      }, 1);
    });
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

/** One request; resolves with the time to its first byte (ms), having read it to the end. */
function ttfb(url: string, headers: Record<string, string>): Promise<number> {
  return new Promise((resolve, reject) => {
    const t = performance.now();
    let first = 0;
    const req = request(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers } });
    req.on('response', (res) => {
      res.on('data', () => {
        if (!first) first = performance.now() - t;
      });
      res.on('end', () => resolve(first));
    });
    req.on('error', reject);
    req.end('{"model":"m","stream":true,"messages":[{"role":"user","content":"hi"}]}');
  });
}

const bench: Benchmark = async () => {
  const up = await upstream();
  const upUrl = `http://127.0.0.1:${(up.address() as AddressInfo).port}`;
  const dir = mkdtempSync(join(tmpdir(), 'nexus-gateway-bench-'));
  const db = openStore(join(dir, 'nexus.db'), migrations);
  db.exec(`
    INSERT INTO workspaces (id, name, repo_url, volume, status, created_at, updated_at)
      VALUES ('w1', 'ws', 'https://example.com/r.git', 'v1', 'running', 't', 't');
    INSERT INTO sessions (id, workspace_id, name, branch, status, agent_state, agent_session_id, created_at, updated_at, agent)
      VALUES ('s1', 'w1', 'one', 'nexus/one', 'running', 'idle', 'a1', 't', 't', 'claude');
  `);
  const redactor = new Redactor();
  const log = createLogger({ redactor });
  const gateway = new ModelGateway({
    db,
    drivers: testDrivers(undefined, { claude: { baseUrl: upUrl } }),
    log,
    redactor,
    events: new EventBus(redactor, log),
    credentialFor: () => Promise.resolve({ kind: 'anthropic_api_key', value: 'sk-ant-api03-bench' }),
    hasCredential: () => true,
    taskOf: () => null,
    budgetReached: () => undefined,
    budgetCleared: () => undefined,
    config: { port: 0 },
  });
  await gateway.listen('127.0.0.1');
  const credential = gateway.issue({ sessionId: 's1', workspaceId: 'w1', agent: 'claude' });
  const direct: number[] = [];
  const through: number[] = [];
  try {
    const pair = await measurePair(
      async () => direct.push(await ttfb(`${upUrl}/v1/messages`, { 'x-api-key': 'sk-ant-api03-bench' })),
      async () => through.push(await ttfb(`${gateway.urlFor('claude')}/v1/messages`, { 'x-api-key': credential })),
      { iterations: 600, concurrency: 4, rounds: 6, warmup: 30 },
    );
    const p = (xs: number[], q: number) => [...xs].sort((a, b) => a - b)[Math.floor((q / 100) * (xs.length - 1))] ?? 0;
    const counted = gateway.usage.session('s1').requests;
    return [
      compare(
        'model request through the gateway (whole streamed answer)',
        'the same answer straight from the upstream',
        pair.subject,
        pair.base,
      ),
      {
        ...compare(
          'time to first byte through the gateway',
          'the first byte straight from the upstream',
          { ...percentiles(through), perSecond: pair.subject.perSecond },
          { ...percentiles(direct), perSecond: pair.base.perSecond },
          'p50 <= +1 ms, p99 <= +5 ms',
        ),
        extra: {
          ttfbP50Ms: Number(p(through, 50).toFixed(3)),
          ttfbP99Ms: Number(p(through, 99).toFixed(3)),
          directTtfbP50Ms: Number(p(direct, 50).toFixed(3)),
          directTtfbP99Ms: Number(p(direct, 99).toFixed(3)),
          addedP50Ms: Number((p(through, 50) - p(direct, 50)).toFixed(3)),
          addedP99Ms: Number((p(through, 99) - p(direct, 99)).toFixed(3)),
          ledgerRows: counted,
          requestsThrough: through.length,
        },
      },
    ];
  } finally {
    await gateway.close();
    up.close();
    db.close();
    rmSync(dir, { recursive: true, force: true });
  }
};
export default bench;
