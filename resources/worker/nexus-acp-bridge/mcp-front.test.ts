import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repoRoot } from '../../../test/helpers/core';
import { tempDir } from '../../../test/helpers/temp-dir';
import { frontStdioServers } from './mcp-front';
import { sessionMcpServers } from './mcp-servers';

const DIGEST_SERVER = join(repoRoot, 'test/fixtures/digest-mcp-server.mjs');
const TOKEN = 'front-test-token';
const digestServer = {
  name: 'digest',
  command: process.execPath,
  args: [DIGEST_SERVER],
  env: [{ name: 'API_TOKEN', value: TOKEN }],
  front: 'http',
};
const httpServer = { type: 'http', name: 'nexus-delegated', url: 'http://192.0.2.1/mcp', headers: [] };
type HttpEntry = { type: string; name: string; url: string; headers: { name: string; value: string }[] };

/** Status of a raw POST initialize to `url` with these headers. */
const status = (url: string, headers: Record<string, string>): Promise<number> =>
  new Promise((resolve, reject) => {
    const body = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } },
    });
    const req = request(
      url,
      {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
      },
      (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      },
    );
    req.on('error', reject);
    req.end(body);
  });

describe("the ACP bridge's HTTP front for stdio MCP servers", () => {
  let fronted: Awaited<ReturnType<typeof frontStdioServers>>;
  let entry: HttpEntry;
  beforeAll(async () => {
    fronted = await frontStdioServers([digestServer, httpServer]);
    entry = fronted.servers[0] as HttpEntry;
  });
  afterAll(async () => fronted?.close());

  it('gives a marked stdio server as an HTTP server on loopback with its own bearer; others as they were', () => {
    expect(fronted.servers[1]).toEqual(httpServer);
    expect(entry).toMatchObject({ type: 'http', name: 'digest' });
    expect(entry.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
    expect(entry.headers).toHaveLength(1);
    expect(entry.headers[0]?.name).toBe('Authorization');
    expect(entry.headers[0]?.value).toMatch(/^Bearer [A-Za-z0-9_-]{43}$/);
  });

  it("serves the server's tools through MCP sessions of its own, with the environment it was given", async () => {
    const auth = { Authorization: entry.headers[0]!.value };
    const clients = await Promise.all(
      [1, 2].map(async () => {
        const c = new Client({ name: 'test', version: '1' });
        await c.connect(new StreamableHTTPClientTransport(new URL(entry.url), { requestInit: { headers: auth } }));
        return c;
      }),
    );
    for (const c of clients) {
      expect((await c.listTools()).tools.map((t) => t.name)).toEqual(['token_digest', 'other']);
      const r = (await c.callTool({ name: 'token_digest', arguments: {} })) as { content: { text: string }[] };
      const digest = createHash('sha256').update(TOKEN).digest('hex');
      expect(r.content[0]?.text).toBe(`sha256:${digest} length:${TOKEN.length}`);
    }
    await Promise.all(clients.map((c) => c.close()));
  });

  it('refuses a request without its bearer, for another host or path, before any process starts', async () => {
    const bearer = entry.headers[0]!.value;
    const port = new URL(entry.url).port;
    expect(await status(entry.url, {})).toBe(401);
    expect(await status(entry.url, { Authorization: `${bearer.slice(0, -1)}x` })).toBe(401);
    expect(await status(entry.url, { Authorization: bearer, Host: `evil.example:${port}` })).toBe(403);
    expect(await status(entry.url.replace('/mcp', '/other'), { Authorization: bearer })).toBe(404);
    expect(await status(entry.url, { Authorization: bearer, 'mcp-session-id': 'not-one-of-its' })).toBe(404);
  });
});

describe("the bridge's session MCP servers", () => {
  it('reads the --mcp file at each call, fronting the marked stdio servers once; none, or no file, is empty', async () => {
    const dir = tempDir('nexus-acp-mcp-');
    try {
      const file = join(dir.path, 'acp-mcp.json');
      writeFileSync(file, JSON.stringify([httpServer, digestServer]));
      const servers = await sessionMcpServers(file);
      const [plain, front] = servers() as HttpEntry[];
      expect(plain).toEqual(httpServer);
      expect(front).toMatchObject({ type: 'http', name: 'digest' });
      expect((servers() as HttpEntry[])[1]).toEqual(front);
      writeFileSync(file, JSON.stringify([httpServer]));
      expect(servers()).toEqual([httpServer]);
      expect((await sessionMcpServers(join(dir.path, 'none.json')))()).toEqual([]);
      expect((await sessionMcpServers(undefined))()).toEqual([]);
    } finally {
      dir.remove();
    }
  });
});
