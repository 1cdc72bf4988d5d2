import { createServer, request, Agent } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { serve } from '../main/serve';
import { compare, measurePair, type Benchmark } from './lib';

const agent = new Agent({ keepAlive: true, maxSockets: 64 });

function post(port: number, path: string, headers: Record<string, string>): Promise<void> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        path,
        method: 'POST',
        agent,
        headers: { host: `127.0.0.1:${port}`, 'content-type': 'application/json', ...headers },
      },
      (res) => {
        res.resume();
        res.on('end', () => (res.statusCode === 200 ? resolve() : reject(new Error(`HTTP ${res.statusCode}`))));
      },
    );
    req.on('error', reject);
    req.end('{}');
  });
}

/** POST /api/rpc/app.info through the whole host (guard, auth, dispatch, zod, redaction, audit) vs a bare node:http handler. */
const bench: Benchmark = async () => {
  const bare = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end('{"result":{}}');
  });
  await new Promise<void>((r) => bare.listen(0, '127.0.0.1', r));
  const barePort = (bare.address() as AddressInfo).port;

  const dataDir = mkdtempSync(join(tmpdir(), 'nexus-bench-'));
  const running = await serve({ dataDir, appRoot: process.cwd(), port: 0, config: { version: 'bench' } });
  const auth = { authorization: `Bearer ${running.host.token}` };
  try {
    // The two alternate in rounds, so both see the same load on a shared machine: short rounds
    // (250 calls, well under a second), since on a busy machine the load moves within seconds, and
    // 80 of them (20,000 calls each, 10-20 s in all), so a burst of load that one side's rounds
    // happened to catch more of weighs less in the two medians.
    const load = loadavg()[0] ?? 0;
    const { base, subject } = await measurePair(
      () => post(barePort, '/', {}),
      () => post(running.host.port, '/api/rpc/app.info', auth),
      { iterations: 20000, concurrency: 16, rounds: 80 },
    );
    return [
      {
        ...compare('host rpc app.info', 'bare node:http', subject, base, '≤ 1.5× bare node:http'),
        extra: { loadAverage: `${load.toFixed(1)}→${(loadavg()[0] ?? 0).toFixed(1)}` },
      },
    ];
  } finally {
    await running.stop();
    bare.close();
    agent.destroy();
    rmSync(dataDir, { recursive: true, force: true });
  }
};
export default bench;
