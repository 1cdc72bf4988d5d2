import { createHash, randomUUID, timingSafeEqual } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { JSONRPCMessageSchema, isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import {
  RESIDENT_BEARER,
  RESIDENT_MCP_PATH,
  RESIDENT_RUN_FILE,
  RESIDENT_SESSION_HEADER,
  ResidentRunFile,
  SESSION_ID,
} from '../../../shared/resident-mcp';
import { createGatedBridge } from './bridge-server';
import { linkRun, type RunIdentity, type RunLink } from './run-link';

/**
 * The resident nexus-mcp: one per workspace container, serving every Claude Code session in it over
 * Streamable HTTP on 127.0.0.1 (docs/performance.md, "One nexus-mcp per container"). Each session
 * keeps its own identity: its MCP config carries its session id and a bearer only it was given; the
 * bearer is checked (in constant time, as SHA-256 digests) against that session's own run file, and
 * its calls go out on that session's own NATS connection, made with its run's credentials on its
 * first request and closed when its run file goes or changes run, or NATS refuses the credential
 * (core ended the run). Nothing else: an MCP session id is only looked up among the calling
 * session's own, so naming another session's id finds nothing of it.
 *
 * A server restarted by its loop (main/core/sessions/launch/resident-mcp.ts) serves the MCP sessions
 * the CLIs already hold: an unknown MCP session id with a valid bearer is taken up again.
 */

export interface ResidentOptions {
  port: number;
  /** The sessions' state dirs' parent: `<stateRoot>/<sessionId>/mcp-run.json`. */
  stateRoot: string;
  /** How long an `initialize` waits for the run's first catalogue (then it offers none, and tools come with list_changed). */
  catalogWaitMs?: number;
  toolTimeoutMs?: number;
  /** How often runs whose file went or changed are closed. */
  sweepMs?: number;
  /** Tests: how a run's NATS link is made. */
  link?: (id: RunIdentity, name: string) => RunLink;
  log?: (line: string) => void;
}

interface Mcp {
  transport: WebStandardStreamableHTTPServerTransport;
  close(): Promise<void>;
}

/** One session the server serves: its run's link and its MCP sessions. */
interface Served {
  runId: string;
  link: RunLink;
  mcp: Map<string, Mcp>;
}

const MAX_BODY = 4 * 1024 * 1024;

const RequestHeaders = z.object({
  authorization: z.string().regex(new RegExp(`^Bearer ${RESIDENT_BEARER.source.slice(1, -1)}$`)),
  [RESIDENT_SESSION_HEADER]: z.string().regex(SESSION_ID),
  'mcp-session-id': z
    .string()
    .regex(/^[\x21-\x7e]{1,200}$/)
    .optional(),
});
const Body = z.union([JSONRPCMessageSchema, z.array(JSONRPCMessageSchema).min(1).max(100)]);

const sha256 = (s: string): Buffer => createHash('sha256').update(s).digest();

export function createResidentServer(opts: ResidentOptions): { server: Server; close(): Promise<void> } {
  const log = opts.log ?? ((line: string) => process.stderr.write(`nexus-mcp resident: ${line}\n`));
  const makeLink = opts.link ?? linkRun;
  const hosts = new Set([`127.0.0.1:${opts.port}`, `localhost:${opts.port}`]);
  const served = new Map<string, Served>();

  const readRun = (sessionId: string): ResidentRunFile | null => {
    try {
      return ResidentRunFile.parse(
        JSON.parse(readFileSync(join(opts.stateRoot, sessionId, RESIDENT_RUN_FILE), 'utf8')),
      );
    } catch {
      return null;
    }
  };
  const drop = async (sessionId: string, s: Served): Promise<void> => {
    if (served.get(sessionId) === s) served.delete(sessionId);
    for (const m of s.mcp.values()) await m.close();
    s.mcp.clear();
    await s.link.close();
  };
  /** The session's link for this run: made on first use, a previous run's closed. */
  const serve = (sessionId: string, run: ResidentRunFile): Served => {
    const had = served.get(sessionId);
    if (had?.runId === run.runId) return had;
    if (had) void drop(sessionId, had);
    let password: string | undefined;
    if (run.password) password = readFileSync(join(opts.stateRoot, sessionId, 'nats-password'), 'utf8').trim();
    const link = makeLink(
      {
        natsUrl: run.natsUrl,
        runId: run.runId,
        user: run.user,
        password,
        inboxPrefix: run.inboxPrefix,
        toolTimeoutMs: opts.toolTimeoutMs ?? 30_000,
      },
      `nexus-mcp-${run.runId}`,
    );
    const s: Served = { runId: run.runId, link, mcp: new Map() };
    served.set(sessionId, s);
    link.ready.catch((e: unknown) => log(`session ${sessionId}: no catalogue yet: ${(e as Error).message}`));
    // Core ended the run (its credential revoked) or the connection gave up: its MCP sessions go with it.
    void link.closed.then(() => drop(sessionId, s));
    return s;
  };
  /** A new MCP session for the served session; `id` given: one a restarted server takes up again. */
  const open = (sessionId: string, s: Served, id?: string): Mcp => {
    const bridge = createGatedBridge(s.link.call);
    bridge.offer(s.link.tools() ?? []);
    const off = s.link.onTools((tools) => bridge.offer(tools));
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => id ?? randomUUID(),
      onsessioninitialized: (sid) => void s.mcp.set(sid, mcp),
    });
    const mcp: Mcp = {
      transport,
      close: async () => {
        off();
        await bridge.server.close().catch(() => undefined);
      },
    };
    transport.onclose = () => {
      off();
      if (transport.sessionId && s.mcp.get(transport.sessionId) === mcp) s.mcp.delete(transport.sessionId);
    };
    void bridge.server.connect(transport);
    if (id) {
      takeUp(transport, id, bridge.server.server);
      s.mcp.set(id, mcp);
    }
    log(`session ${sessionId}: ${id ? 'took up' : 'opened'} an MCP session`);
    return mcp;
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    // Before anything is read: only this loopback address (a page in a browser cannot rebind to it).
    if (!hosts.has(req.headers.host ?? '')) return reply(res, 403, 'Forbidden: unexpected Host');
    if ((req.url ?? '').split('?')[0] !== RESIDENT_MCP_PATH) return reply(res, 404, 'Not found');
    const h = RequestHeaders.safeParse(req.headers);
    if (!h.success) return reply(res, 401, 'Unauthorized');
    const sessionId = h.data[RESIDENT_SESSION_HEADER];
    const run = readRun(sessionId);
    const given = sha256(h.data.authorization.slice('Bearer '.length));
    const expected = run ? Buffer.from(run.bearerSha256, 'hex') : sha256(randomUUID());
    if (!run || !timingSafeEqual(given, expected)) return reply(res, 401, 'Unauthorized');
    let body: unknown;
    if (req.method === 'POST') {
      const raw = await readBody(req);
      if (raw === null) return reply(res, 413, 'Request too large');
      const parsed = Body.safeParse(parseJson(raw));
      if (!parsed.success) return reply(res, 400, 'Bad Request: not a JSON-RPC message');
      body = parsed.data;
    }
    const s = serve(sessionId, run);
    const initialize = Array.isArray(body) ? body.some(isInitializeRequest) : isInitializeRequest(body);
    const mcpId = h.data['mcp-session-id'];
    if (!initialize && !mcpId) return reply(res, 400, 'Bad Request: Mcp-Session-Id header is required');
    let mcp = !initialize && mcpId ? s.mcp.get(mcpId) : undefined;
    if (!mcp) {
      // As the stdio nexus-mcp: a new MCP session waits (a while) for the run's catalogue, so its first tools/list has it.
      if (!s.link.tools()) await waitFor(s.link.ready, opts.catalogWaitMs ?? 10_000);
      mcp = open(sessionId, s, initialize ? undefined : mcpId);
    }
    const response = await mcp.transport.handleRequest(toWebRequest(req, opts.port), { parsedBody: body });
    await send(res, response);
  };

  const server = createServer((req, res) => {
    handle(req, res).catch((e: unknown) => {
      log(`request failed: ${(e as Error).message}`);
      if (!res.headersSent) reply(res, 500, 'Internal error');
      else res.destroy();
    });
  });
  const sweep = setInterval(() => {
    for (const [sessionId, s] of served) if (readRun(sessionId)?.runId !== s.runId) void drop(sessionId, s);
  }, opts.sweepMs ?? 10_000);
  sweep.unref();
  return {
    server,
    async close() {
      clearInterval(sweep);
      for (const [id, s] of [...served]) await drop(id, s);
      await new Promise<void>((r) => {
        server.close(() => r());
        server.closeAllConnections();
      });
    },
  };
}

/**
 * Takes up an MCP session a previous server process initialized: the transport answers to that id
 * as if its `initialize` had come here (the SDK keeps no other state for it), and the server treats
 * the client as initialized (so list_changed goes out). Pinned by resident-server.test.ts.
 */
function takeUp(
  transport: WebStandardStreamableHTTPServerTransport,
  id: string,
  server: { oninitialized?: () => void },
): void {
  const t = transport as unknown as { sessionId?: string; _initialized: boolean };
  t.sessionId = id;
  t._initialized = true;
  server.oninitialized?.();
}

function reply(res: ServerResponse, status: number, message: string): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message }, id: null }));
}

async function readBody(req: IncomingMessage): Promise<string | null> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY) return null;
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function parseJson(raw: string): unknown {
  try {
    return JSON.parse(raw) as unknown;
  } catch {
    return undefined;
  }
}

async function waitFor(p: Promise<unknown>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([p.catch(() => undefined), new Promise((r) => (timer = setTimeout(r, ms)))]);
  clearTimeout(timer);
}

/** The request as the SDK's transport reads it: method and headers (the body is passed parsed). */
function toWebRequest(req: IncomingMessage, port: number): Request {
  const headers = new Headers();
  for (const [k, v] of Object.entries(req.headers)) if (typeof v === 'string') headers.set(k, v);
  return new Request(`http://127.0.0.1:${port}${req.url ?? '/'}`, { method: req.method ?? 'GET', headers });
}

/** Writes the transport's answer, streaming an SSE body until either side ends it. */
async function send(res: ServerResponse, response: Response): Promise<void> {
  const headers: Record<string, string> = {};
  response.headers.forEach((v, k) => (headers[k] = v));
  res.writeHead(response.status, headers);
  if (!response.body) return void res.end();
  const body = Readable.fromWeb(response.body as WebReadableStream);
  res.on('close', () => body.destroy());
  body.on('error', () => res.destroy());
  body.pipe(res);
  res.flushHeaders();
}
