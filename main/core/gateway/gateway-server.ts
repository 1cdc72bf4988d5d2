import { randomUUID } from 'node:crypto';
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { errorMessage } from '../../../shared/errors';
import type { Logger } from '../log';
import type { GatewayCaller } from './gateway-credential-store';
import { UsageParser, type TokenCounts, type Wire } from './usage-parse';

/** What the gateway asks of core for one request (gateway.ts implements it). */
export interface GatewayRoutes {
  /** The session a presented credential speaks for, or null. */
  verify(credential: string): GatewayCaller | null;
  /** The caller's kind's wire and upstream, and how the real credential signs a request; or why not. */
  upstream(caller: GatewayCaller): Promise<
    | {
        wire: Wire;
        base: string;
        sign(incoming: Record<string, string | string[] | undefined>): Record<string, string>;
      }
    | { refused: string; status: number }
  >;
  /** Why the next request of this caller is refused (a budget reached), or null. */
  refusal(caller: GatewayCaller): string | null;
  /** One answer's tokens, once per request id; resolves once they are in the ledger. */
  counted(caller: GatewayCaller, requestId: string, counts: TokenCounts): Promise<void>;
  /**
   * The provider answered: a success as soon as it starts (body ''), a 429 once it ended, with the start of its body
   * (a usage limit's reset is read from it: usage-limit-parse.ts). Other statuses are not told.
   */
  answered?(
    caller: GatewayCaller,
    status: number,
    headers: Record<string, string | string[] | undefined>,
    body: string,
  ): void;
}

/** How much of a 429's body is kept to read its reset from (the providers' are a few hundred bytes). */
const LIMIT_BODY_MAX = 64 * 1024;

/** Request headers never forwarded: the agent's credential, hop-by-hop ones, and what Node sets itself. */
const DROP = new Set([
  'authorization',
  'x-api-key',
  'x-goog-api-key',
  'host',
  'connection',
  'keep-alive',
  'proxy-authorization',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
]);

/** Google's status names for the HTTP statuses the gateway answers with. */
const GOOGLE_STATUS: Record<number, string> = {
  400: 'INVALID_ARGUMENT',
  401: 'UNAUTHENTICATED',
  403: 'PERMISSION_DENIED',
  404: 'NOT_FOUND',
  429: 'RESOURCE_EXHAUSTED',
  502: 'UNAVAILABLE',
  503: 'UNAVAILABLE',
};

/** A refusal in the provider's error shape, so the agent's CLI shows the message as the provider's own. */
export function errorBody(wire: Wire, message: string, status = 400): string {
  if (wire === 'anthropic-messages')
    return JSON.stringify({ type: 'error', error: { type: 'invalid_request_error', message } });
  if (wire === 'google-generate')
    return JSON.stringify({ error: { code: status, message, status: GOOGLE_STATUS[status] ?? 'UNKNOWN' } });
  return JSON.stringify({ error: { message, type: 'invalid_request_error', code: 'nexus_refused' } });
}

/**
 * `/<kind>/<provider path>[?query]`: the provider path is `/v1/…` (Google's: `/v1beta/…`, `/v1alpha/…`, with
 * `models/<model>:<method>`), and no segment is `.` or `..` (the upstream URL must stay under the provider's base).
 */
export function gatewayPath(url: string): { kind: string; path: string; query: URLSearchParams } | null {
  const m = /^\/([a-z][a-z0-9-]{0,31})(\/v1(?:beta|alpha)?\/[A-Za-z0-9/_.:-]*)(?:\?(.*))?$/.exec(url);
  if (!m || m[2]!.split('/').some((seg) => seg === '.' || seg === '..')) return null;
  return { kind: m[1]!, path: m[2]!, query: new URLSearchParams(m[3] ?? '') };
}

/**
 * The model gateway's HTTP face, on the workers' host address (never a wildcard). A request is
 * `/<kind>/<provider path>` with the session's gateway credential where the provider's key would be
 * (`x-api-key`, `Authorization: Bearer`, Google's `x-goog-api-key` or `?key=`); the credential is swapped for the real
 * one (every credential header and the `key` parameter the agent sent are dropped) and the request goes to the kind's
 * upstream; the answer streams back chunk by chunk (nothing buffered), its tokens counted on the way.
 */
export class GatewayServer {
  private server: http.Server | null = null;

  constructor(
    private readonly routes: GatewayRoutes,
    private readonly log: Logger,
    /** Trusted CAs for upstream TLS besides the system's (tests: their own CA). */
    private readonly ca?: string | undefined,
  ) {}

  /** Listens on host:port (0: any free port); returns the address workers use. */
  async listen(host: string, port: number): Promise<{ host: string; port: number }> {
    await this.close();
    const server = http.createServer((req, res) => void this.handle(req, res));
    server.keepAliveTimeout = 65_000;
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, host, () => resolve());
    });
    this.server = server;
    const a = server.address() as AddressInfo;
    return { host: a.address, port: a.port };
  }

  async close(): Promise<void> {
    const s = this.server;
    this.server = null;
    if (!s) return;
    s.closeAllConnections();
    await new Promise<void>((resolve) => s.close(() => resolve()));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const m = gatewayPath(req.url ?? '');
    const credential = m ? bearer(req, m.query) : null;
    const caller = credential ? this.routes.verify(credential) : null;
    if (!m || !caller || caller.agent !== m.kind) {
      res.writeHead(m ? 401 : 404, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: m ? 'Not a Nexus session credential.' : 'Not found.' } }));
      req.resume();
      return;
    }
    let up;
    try {
      up = await this.routes.upstream(caller);
    } catch (e) {
      up = { refused: `Nexus could not sign this request: ${errorMessage(e)}`, status: 503 };
    }
    if ('refused' in up) return this.refuse(req, res, 'anthropic-messages', up.status, up.refused);
    const refusal = this.routes.refusal(caller);
    if (refusal) return this.refuse(req, res, up.wire, 400, refusal);
    const requestId = randomUUID();
    // The agent's `key` parameter (Google's other place for a key) never goes upstream: the real one is a header.
    m.query.delete('key');
    const query = m.query.toString();
    const target = new URL(`${up.base.replace(/\/+$/, '')}${m.path}${query ? `?${query}` : ''}`);
    const headers: Record<string, string | string[]> = {};
    for (const [k, v] of Object.entries(req.headers)) if (v !== undefined && !DROP.has(k)) headers[k] = v;
    Object.assign(headers, up.sign(req.headers));
    const client = target.protocol === 'https:' ? https : http;
    const upstream = client.request(
      target,
      { method: req.method, headers, ...(this.ca && target.protocol === 'https:' ? { ca: this.ca } : {}) },
      (answer) => {
        const streaming = /text\/event-stream/.test(String(answer.headers['content-type'] ?? ''));
        const status = answer.statusCode ?? 502;
        const parser = status === 200 ? new UsageParser(up.wire, streaming) : null;
        res.writeHead(status, answer.headers);
        if (status < 300) this.routes.answered?.(caller, status, answer.headers, '');
        const limitBody: Buffer[] = [];
        let kept = 0;
        // Each chunk goes on as it comes (nothing buffered): streaming stays streaming.
        answer.on('data', (chunk: Buffer) => {
          parser?.push(chunk);
          if (status === 429 && kept < LIMIT_BODY_MAX) {
            limitBody.push(chunk);
            kept += chunk.length;
          }
          res.write(chunk);
        });
        answer.on('end', () => {
          const end = () => {
            res.end();
            if (status === 429)
              this.routes.answered?.(caller, status, answer.headers, Buffer.concat(limitBody).toString('utf8'));
          };
          // Counted before the answer's end goes on: an answer the agent has whole is in the ledger.
          const counts = parser?.done();
          if (!counts) return end();
          this.routes.counted(caller, requestId, counts).then(end, (e: unknown) => {
            this.log.error('model gateway: an answer could not be counted', {
              agent: caller.agent,
              error: errorMessage(e),
            });
            end();
          });
        });
        answer.on('error', () => res.destroy());
      },
    );
    upstream.on('error', (e) => {
      this.log.warn('model gateway: upstream failed', { agent: caller.agent, error: errorMessage(e) });
      if (!res.headersSent) {
        res.writeHead(502, { 'content-type': 'application/json' });
        res.end(errorBody(up.wire, `Nexus could not reach the model provider: ${errorMessage(e)}`, 502));
      } else res.destroy();
    });
    // The agent gave up (or core is closing): so does the upstream request.
    res.on('close', () => {
      if (!res.writableFinished) upstream.destroy();
    });
    req.pipe(upstream);
  }

  private refuse(req: IncomingMessage, res: ServerResponse, wire: Wire, status: number, message: string): void {
    req.resume();
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(errorBody(wire, message, status));
  }
}

/** The credential the agent presented where its provider's key goes (a header, else Google's `?key=`). */
function bearer(req: IncomingMessage, query: URLSearchParams): string | null {
  for (const name of ['x-api-key', 'x-goog-api-key']) {
    const key = req.headers[name];
    if (typeof key === 'string' && key.trim()) return key.trim();
  }
  const auth = req.headers.authorization;
  const m = typeof auth === 'string' ? /^Bearer\s+(\S+)$/i.exec(auth) : null;
  return m?.[1] ?? query.get('key') ?? null;
}
