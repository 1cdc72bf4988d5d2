import { lookup } from 'node:dns/promises';
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import { connect, isIP, type AddressInfo, type Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { errorMessage } from '../../../shared/errors';
import type { Logger } from '../log';
import { canonicalHost, matchAllowList, type AllowEntry } from './allow-list';

/** The workspace a connection comes from, and its allow-list; null: the address is no confined workspace's. */
export type EgressCaller = { workspaceId: string; name: string; entries: readonly AllowEntry[] } | null;

/** Who a request says it is: its source address, and the proxy credential it presents (null: none presented). */
export interface EgressWho {
  address: string;
  credential: string | null;
}

export interface EgressProxyDeps {
  /**
   * Who is calling: the confined workspace whose proxy credential the request presents (a workspace on a remote
   * engine, whose address the engine's link hides), else the one at its source address on the confined network.
   */
  callerOf(who: EgressWho): Promise<EgressCaller>;
  /** A refused attempt, to record and show. */
  refused(workspaceId: string, r: { method: string; host: string; port: number; reason: string }): void;
  log: Logger;
}

/** Addresses a name's entry never reaches (the host itself, link-local metadata services), only an address's entry. */
const NEVER_BY_NAME = [
  /^127\./,
  /^0\./,
  /^169\.254\./,
  /^::1$/,
  /^::$/,
  /^fe[89ab][0-9a-f]:/i,
  /^::ffff:(127|0|169\.254)\./i,
];

const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'proxy-authorization',
  'proxy-authenticate',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
]);

/** The proxy credential of a `Proxy-Authorization: Basic` header (its password); '' for any other header. */
export function proxyCredentialOf(header: string | undefined): string | null {
  if (header === undefined) return null;
  const basic = /^Basic\s+([A-Za-z0-9+/=]{1,400})$/i.exec(header.trim());
  if (!basic?.[1]) return '';
  const pair = Buffer.from(basic[1], 'base64').toString('utf8');
  const colon = pair.indexOf(':');
  return colon < 0 ? '' : pair.slice(colon + 1);
}

const whoOf = (req: IncomingMessage): EgressWho => ({
  address: req.socket.remoteAddress ?? '',
  credential: proxyCredentialOf(req.headers['proxy-authorization']),
});

/** Why an unknown caller is turned away (407: a client that sends its credential only when asked asks again). */
const unknownReason = (who: EgressWho): string =>
  who.credential === null
    ? 'this address is not a confined Nexus workspace, and no proxy credential was presented'
    : 'the proxy credential is not a confined Nexus workspace\u2019s';
const UNKNOWN_HEADERS = { 'content-type': 'text/plain', 'proxy-authenticate': 'Basic realm="Nexus egress"' };

/** An answer written on a CONNECT's raw socket (no ServerResponse there): the status, the headers, the body's length. */
const rawAnswer = (status: string, headers: Record<string, string>, body: string): string =>
  `HTTP/1.1 ${status}\r\n${Object.entries({ ...headers, 'content-length': String(Buffer.byteLength(body)) })
    .map(([k, v]) => `${k}: ${v}\r\n`)
    .join('')}\r\n${body}`;

/**
 * The egress proxy of confined workspaces: CONNECT tunnels (https, no TLS interception) and plain http forwarding,
 * each only to a host:port on the calling workspace's allow-list; everything else gets 403 with the reason, and is
 * recorded. The target is resolved here: a name's entry that resolves to loopback or link-local is refused.
 */
export class EgressProxy {
  private readonly server = http.createServer((req, res) => void this.forward(req, res));
  private readonly sockets = new Set<Duplex>();

  constructor(private readonly deps: EgressProxyDeps) {
    this.server.on(
      'connect',
      (req: IncomingMessage, socket: Duplex, head: Buffer) => void this.tunnel(req, socket, head),
    );
    this.server.on('connection', (s: Socket) => this.track(s));
  }

  async listen(host: string, port: number): Promise<{ host: string; port: number }> {
    await new Promise<void>((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(port, host, () => {
        this.server.off('error', reject);
        resolve();
      });
    });
    const a = this.server.address() as AddressInfo;
    return { host: a.address, port: a.port };
  }

  async close(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    if (this.server.listening) await new Promise<void>((r) => this.server.close(() => r()));
  }

  private track(s: Duplex): void {
    this.sockets.add(s);
    s.on('close', () => this.sockets.delete(s));
  }

  /** The target's address when the caller may reach it, else the reason it may not. */
  private async decide(
    caller: NonNullable<EgressCaller>,
    host: string,
    port: number,
    defaultPort: 80 | 443,
  ): Promise<{ address: string } | { reason: string }> {
    const entry = matchAllowList(caller.entries, host, port, defaultPort);
    if (!entry) return { reason: `${host}:${port} is not on the allow-list of workspace ${caller.name}` };
    const canonical = canonicalHost(host);
    if (!canonical) return { reason: `${host} is not a host name` };
    if (canonical.ip) return { address: canonical.host };
    let address: string;
    try {
      address = (await lookup(canonical.host)).address;
    } catch (e) {
      return { reason: `${host} does not resolve (${errorMessage(e)})` };
    }
    if (NEVER_BY_NAME.some((r) => r.test(address)))
      return { reason: `${host} resolves to ${address}, which only an entry naming that address opens` };
    return { address };
  }

  private refuse(caller: EgressCaller, method: string, host: string, port: number, reason: string): string {
    if (caller) this.deps.refused(caller.workspaceId, { method, host, port, reason });
    this.deps.log.info('egress refused', { workspace: caller?.workspaceId ?? null, method, host, port, reason });
    return caller
      ? `Refused by Nexus egress: ${reason}. Add the host in the workspace's settings (Egress) to allow it.\n`
      : `Refused by Nexus egress: ${reason}.\n`;
  }

  private async tunnel(req: IncomingMessage, client: Duplex, head: Buffer): Promise<void> {
    this.track(client);
    client.on('error', () => client.destroy());
    const target = /^(\[[^\]]+\]|[^:]+):(\d{1,5})$/.exec(req.url ?? '');
    const host = target?.[1]?.replace(/^\[|\]$/g, '') ?? '';
    const port = Number(target?.[2] ?? 0);
    const who = whoOf(req);
    const caller = await this.deps.callerOf(who);
    if (!caller) {
      const body = this.refuse(null, 'CONNECT', host, port, unknownReason(who));
      return void client.end(rawAnswer('407 Proxy Authentication Required', UNKNOWN_HEADERS, body));
    }
    const verdict = target
      ? await this.decide(caller, host, port, 443)
      : { reason: `"${req.url ?? ''}" is not a host:port` };
    if ('reason' in verdict) {
      const body = this.refuse(caller, 'CONNECT', host, port, verdict.reason);
      return void client.end(rawAnswer('403 Forbidden', { 'content-type': 'text/plain' }, body));
    }
    const upstream = connect({ host: verdict.address, port });
    this.track(upstream);
    upstream.once('connect', () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length) upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    upstream.on('error', (e) => {
      if (!upstream.readyState || upstream.connecting)
        client.end(
          `HTTP/1.1 502 Bad Gateway\r\ncontent-type: text/plain\r\n\r\nNexus egress: ${host}:${port}: ${e.message}\n`,
        );
      else client.destroy();
    });
    client.on('close', () => upstream.destroy());
  }

  private async forward(req: IncomingMessage, res: ServerResponse): Promise<void> {
    let url: URL | null = null;
    try {
      url = new URL(req.url ?? '');
    } catch {
      url = null;
    }
    const who = whoOf(req);
    const caller = await this.deps.callerOf(who);
    const method = req.method ?? 'GET';
    if (!url || url.protocol !== 'http:') {
      const body = `Nexus egress forwards absolute http:// URLs; use CONNECT for https (got "${req.url ?? ''}").\n`;
      res.writeHead(400, { 'content-type': 'text/plain' }).end(body);
      return;
    }
    const host = url.hostname.replace(/^\[|\]$/g, '');
    const port = Number(url.port || 80);
    if (!caller) {
      res.writeHead(407, UNKNOWN_HEADERS).end(this.refuse(null, method, host, port, unknownReason(who)));
      return;
    }
    const verdict = await this.decide(caller, host, port, 80);
    if ('reason' in verdict) {
      res.writeHead(403, { 'content-type': 'text/plain' }).end(this.refuse(caller, method, host, port, verdict.reason));
      return;
    }
    const headers: http.OutgoingHttpHeaders = {};
    for (const [k, v] of Object.entries(req.headers)) if (!HOP_BY_HOP.has(k) && v !== undefined) headers[k] = v;
    // The Host the allow-list judged, whatever the client's header said: another Host would reach another site on a
    // shared front (a CDN) that the list never named.
    headers.host = url.host;
    const upstream = http.request({
      host: verdict.address,
      port,
      method,
      path: `${url.pathname}${url.search}`,
      headers,
      // The Host set above (the name the allow-list matched, not the address); the address is pinned above.
      setHost: false,
      family: isIP(verdict.address) || undefined,
    });
    upstream.on('response', (answer) => {
      const out: http.OutgoingHttpHeaders = {};
      for (const [k, v] of Object.entries(answer.headers)) if (!HOP_BY_HOP.has(k) && v !== undefined) out[k] = v;
      res.writeHead(answer.statusCode ?? 502, out);
      answer.pipe(res);
    });
    upstream.on('error', (e) => {
      if (!res.headersSent)
        res.writeHead(502, { 'content-type': 'text/plain' }).end(`Nexus egress: ${host}:${port}: ${e.message}\n`);
      else res.destroy();
    });
    req.pipe(upstream);
  }
}
