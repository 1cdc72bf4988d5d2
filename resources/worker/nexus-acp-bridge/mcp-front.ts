import { randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { StdioClientTransport, getDefaultEnvironment } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';

/**
 * An HTTP front for the stdio MCP servers of a kind that takes only HTTP ones from `session/new` (Copilot CLI: its
 * `mcpTransports` is `['http']`). Core marks such a server in the session's `--mcp` file (`front: "http"`, its stdio
 * form kept: acp-driver.ts acpMcpServers); the bridge serves each on 127.0.0.1 at an ephemeral port, Streamable HTTP,
 * with a bearer it draws itself (32 random bytes) and gives only in `session/new`'s headers, and starts the server's
 * process for each MCP session the agent opens (its stdio piped through, message for message). A request without
 * the bearer (401), for another host (403, DNS rebinding) or another path (404) reaches no process.
 */

export interface StdioEntry {
  name: string;
  command: string;
  args?: unknown[];
  env?: { name: string; value: string }[];
  front?: unknown;
}

interface Front {
  entry: object;
  server: Server;
}

const PATH = '/mcp';
const MAX_BODY = 4 * 1024 * 1024;

const isFronted = (e: unknown): e is StdioEntry => {
  const o = e as Partial<StdioEntry> | null;
  return !!o && o.front === 'http' && typeof o.name === 'string' && typeof o.command === 'string';
};

/**
 * The servers of `list` with each marked stdio server replaced by its HTTP front (`{type: "http", name, url,
 * headers}`), the fronts started; `close` ends them and the processes they started.
 */
export async function frontStdioServers(list: unknown[]): Promise<{ servers: unknown[]; close(): Promise<void> }> {
  const fronts: Front[] = [];
  const servers: unknown[] = [];
  for (const e of list)
    if (isFronted(e)) {
      const f = await startFront(e);
      fronts.push(f);
      servers.push(f.entry);
    } else servers.push(e);
  return {
    servers,
    close: async () => {
      await Promise.all(fronts.map((f) => new Promise((r) => f.server.close(r))));
    },
  };
}

async function startFront(e: StdioEntry): Promise<Front> {
  const bearer = Buffer.from(`Bearer ${randomBytes(32).toString('base64url')}`);
  const sessions = new Map<string, { http: StreamableHTTPServerTransport; child: StdioClientTransport }>();
  const env: Record<string, string> = { ...getDefaultEnvironment() };
  for (const v of e.env ?? []) env[v.name] = v.value;
  let hosts = new Set<string>();

  const open = async (): Promise<StreamableHTTPServerTransport> => {
    const child = new StdioClientTransport({
      command: e.command,
      args: (e.args ?? []).map(String),
      env,
      stderr: 'ignore',
    });
    const http = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (sid) => void sessions.set(sid, { http, child }),
    });
    let ended = false;
    const end = (): void => {
      if (ended) return;
      ended = true;
      if (http.sessionId) sessions.delete(http.sessionId);
      void child.close().catch(() => undefined);
      void http.close().catch(() => undefined);
    };
    http.onmessage = (m) => void child.send(m).catch(end);
    http.onclose = end;
    // A response finds its request's stream by its id; what the server sends of itself goes on the GET stream.
    child.onmessage = (m) => void http.send(m).catch(() => undefined);
    child.onclose = end;
    child.onerror = () => undefined;
    await child.start();
    return http;
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const fail = (code: number, message: string): void => {
      res.writeHead(code, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message }, id: null }));
    };
    const auth = Buffer.from(req.headers.authorization ?? '');
    if (auth.length !== bearer.length || !timingSafeEqual(auth, bearer)) return fail(401, 'Unauthorized');
    if (!hosts.has(req.headers.host ?? '')) return fail(403, 'Forbidden host');
    if (new URL(req.url ?? '/', 'http://x').pathname !== PATH) return fail(404, 'Not found');
    const sid = req.headers['mcp-session-id'];
    let body: unknown;
    if (req.method === 'POST') {
      const chunks: Buffer[] = [];
      let size = 0;
      for await (const c of req as AsyncIterable<Buffer>) {
        size += c.length;
        if (size > MAX_BODY) return fail(413, 'Too large');
        chunks.push(c);
      }
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      } catch {
        return fail(400, 'Parse error');
      }
    }
    const known = typeof sid === 'string' ? sessions.get(sid) : undefined;
    if (known) return known.http.handleRequest(req, res, body);
    if (sid === undefined && req.method === 'POST' && isInitializeRequest(body))
      return (await open()).handleRequest(req, res, body);
    return fail(sid === undefined ? 400 : 404, sid === undefined ? 'No MCP session' : 'Unknown MCP session');
  };

  const server = createServer((req, res) => {
    handle(req, res).catch(() => {
      if (!res.headersSent) res.writeHead(500).end();
      else res.end();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  // The agent and NATS keep the bridge alive, not its fronts.
  server.unref();
  const { port } = server.address() as AddressInfo;
  hosts = new Set([`127.0.0.1:${port}`, `localhost:${port}`]);
  server.on('close', () => {
    for (const s of sessions.values()) void s.child.close().catch(() => undefined);
  });
  return {
    server,
    entry: {
      type: 'http',
      name: e.name,
      url: `http://127.0.0.1:${port}${PATH}`,
      headers: [{ name: 'Authorization', value: bearer.toString() }],
    },
  };
}
