import { Agent, createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { operatorContext } from '../main/core/handlers';
import { serve } from '../main/serve';
import { seedFleet } from './fleet';
import { compare, measurePair, type Benchmark } from './lib';

const agent = new Agent({ keepAlive: true, maxSockets: 64 });

function callTool(port: number, name: string, headers: Record<string, string>): Promise<void> {
  const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: {} } });
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        path: '/api/mcp',
        method: 'POST',
        agent,
        headers: {
          host: `127.0.0.1:${port}`,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          ...headers,
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          if (res.statusCode !== 200 || text.includes('"isError":true'))
            reject(new Error(`HTTP ${res.statusCode}: ${text.slice(0, 200)}`));
          else resolve();
        });
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** The baseline: a bare SDK server with one no-op tool, stateless Streamable HTTP, the same per-request pattern. */
async function startBareServer(): Promise<{ port: number; close(): void }> {
  const http = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const server = new McpServer({ name: 'bare', version: '1.0.0' });
      server.registerTool('noop', { description: 'does nothing' }, () => ({ content: [{ type: 'text', text: 'ok' }] }));
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
      res.on('close', () => {
        void transport.close();
        void server.close();
      });
      void server
        .connect(transport)
        .then(() => transport.handleRequest(req, res, JSON.parse(Buffer.concat(chunks).toString('utf8'))));
    });
  });
  await new Promise<void>((r) => http.listen(0, '127.0.0.1', r));
  return { port: (http.address() as AddressInfo).port, close: () => http.close() };
}

/**
 * get_nexus_info and list_workspaces through the whole path (host guard, gate, token check with
 * last-use write, per-token server, dispatcher with zod, redaction and audit) vs the bare server.
 */
const bench: Benchmark = async () => {
  const bare = await startBareServer();
  const dataDir = mkdtempSync(join(tmpdir(), 'nexus-bench-mcp-'));
  const running = await serve({
    dataDir,
    appRoot: process.cwd(),
    port: 0,
    config: { version: 'bench', quota: { maxWorkspaces: 64, maxSessionsPerWorkspace: 16 } },
  });
  try {
    const seeded = await seedFleet(running);
    const { secret } = await running.core.dispatcher.call(
      'tokens.create',
      { name: 'bench', class: 'read' },
      operatorContext('internal'),
    );
    const auth = { authorization: `Bearer ${secret}` };
    // Each subject alternates with its own baseline in rounds, so both see the same load. workspaces.list
    // reconciles every row with the engine: fewer iterations keep the run short.
    // Short rounds (50 calls) for get_nexus_info: on a busy machine the load moves within seconds.
    const bareCall = () => callTool(bare.port, 'noop', {});
    const load = loadavg()[0] ?? 0;
    const info = await measurePair(bareCall, () => callTool(running.host.port, 'get_nexus_info', auth), {
      iterations: 1000,
      concurrency: 4,
      rounds: 20,
      warmup: 50,
    });
    const loadAfter = loadavg()[0] ?? 0;
    const list = await measurePair(bareCall, () => callTool(running.host.port, 'list_workspaces', auth), {
      iterations: 300,
      concurrency: 4,
      rounds: 6,
      warmup: 20,
    });
    const figures = [
      {
        ...compare(
          `mcp get_nexus_info (${seeded})`,
          'bare SDK no-op tool',
          info.subject,
          info.base,
          '≤ 2× the bare server',
        ),
        extra: { loadAverage: `${load.toFixed(1)}→${loadAfter.toFixed(1)}` },
      },
      compare(
        `mcp list_workspaces (${seeded})`,
        'bare SDK no-op tool',
        list.subject,
        list.base,
        '≤ 3× the bare server',
      ),
    ];
    return figures;
  } finally {
    await running.stop();
    bare.close();
    agent.destroy();
    rmSync(dataDir, { recursive: true, force: true });
  }
};

export default bench;
