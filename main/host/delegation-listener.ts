import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { CoreApi } from '../core';
import { sendJson } from '../core/http-json';
import { announceInternal } from '../core/internal-answers';
import { MCP_PATH } from '../core/mcp';
import { allowList, checkHostAndOrigin, type AllowList } from './guard';
import { splitUrl } from './routes';

export interface DelegationListener {
  /** `http://<gateway>:<port>` while it listens; null while the workers' bridge is not known. */
  url(): string | null;
  close(): Promise<void>;
}

/** Whether an IPv4 address (or its IPv4-mapped IPv6 form) is inside `a.b.c.d/n`. */
export function inSubnet(address: string | undefined, cidr: string): boolean {
  const ip = toInt((address ?? '').replace(/^::ffff:/i, ''));
  const [base, bits] = cidr.split('/');
  const net = toInt(base ?? '');
  const n = Number(bits);
  if (ip === null || net === null || !Number.isInteger(n) || n < 0 || n > 32) return false;
  const mask = n === 0 ? 0 : (~0 << (32 - n)) >>> 0;
  return (ip & mask) >>> 0 === (net & mask) >>> 0;
}

function toInt(ip: string): number | null {
  const m = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(ip);
  if (!m) return null;
  const parts = m.slice(1).map(Number);
  if (parts.some((p) => p > 255)) return null;
  return parts.reduce((acc, p) => acc * 256 + p, 0);
}

/**
 * The worker-facing MCP listener: the same gate, server, tools, classes and audit as the loopback
 * `/api/mcp`, bound to the workers' bridge gateway only, taking connections from that bridge's
 * subnet only, Host checked against the gateway and port, and serving nothing but `POST /api/mcp`
 * with a workspace's delegated credential (no UI, no /api/rpc, no /api/events, no terminal). With
 * `host` networking there is no bridge: the loopback endpoint serves workers and this does nothing.
 * When Docker does not answer at start, it binds as soon as the status board says Docker is back.
 */
export async function startDelegationListener(core: CoreApi, opts: { port: number }): Promise<DelegationListener> {
  const log = core.log.child({ component: 'delegation-listener' });
  if (!core.delegation.overBridge) return { url: () => null, close: () => Promise.resolve() };
  let server: Server | null = null;
  let url: string | null = null;
  let closed = false;
  let binding = false;

  const bind = async (): Promise<void> => {
    if (server || closed || binding) return;
    binding = true;
    try {
      const { gateway, subnet } = await core.delegation.bridge();
      if (closed) return;
      const gate = core.mcpGate({ delegatedOnly: true });
      let allowed: AllowList = allowList([], 0);
      const s = createServer((req, res) => void serve(req, res, subnet, allowed, gate));
      s.on('connection', (socket: Socket) => {
        // Only workers on the bridge: anything else is dropped before a byte is read.
        if (!inSubnet(socket.remoteAddress, subnet)) {
          log.warn('refused a connection from outside the workers’ subnet', { remote: socket.remoteAddress, subnet });
          socket.destroy();
        }
      });
      s.keepAliveTimeout = 5000;
      const port = await listen(s, gateway, opts.port).catch((e: unknown) => {
        if ((e as NodeJS.ErrnoException).code !== 'EADDRINUSE' || opts.port === 0) throw e;
        log.warn('the delegation port is taken; using a free one', { port: opts.port });
        return listen(s, gateway, 0);
      });
      allowed = allowList([gateway], port);
      server = s;
      url = `http://${gateway}:${port}`;
      core.delegation.listening(url);
      log.info('delegation listener listening', { url, subnet });
    } catch (e) {
      log.warn('the delegation listener is not listening yet', { error: e });
    } finally {
      binding = false;
    }
  };

  const serve = async (
    req: IncomingMessage,
    res: ServerResponse,
    subnet: string,
    allowed: AllowList,
    gate: (req: IncomingMessage, res: ServerResponse) => Promise<void>,
  ): Promise<void> => {
    res.setHeader('x-content-type-options', 'nosniff');
    if (!inSubnet(req.socket.remoteAddress, subnet)) return void req.socket.destroy();
    if (splitUrl(req.url ?? '/').path !== MCP_PATH)
      return sendJson(res, 404, { error: { code: 'not_found', message: 'Only /api/mcp is served here.' } });
    // Remote engines' relays (core.delegation.relayHosts) carry their workers' Host to this listener.
    const relayed = core.delegation.relayHosts.has(req.headers.host ?? '') && req.headers.origin === undefined;
    const guard = relayed ? { ok: true as const } : checkHostAndOrigin(req, allowed);
    if (!guard.ok) return sendJson(res, 403, { error: { code: 'forbidden', message: `${guard.reason}.` } });
    try {
      await gate(req, res);
    } catch (e) {
      log.warn('delegated request failed', { error: e });
      announceInternal({ operation: 'delegation listener', message: 'Internal error.' });
      if (!res.headersSent) sendJson(res, 500, { error: { code: 'internal', message: 'Internal error.' } });
      else res.destroy();
    }
  };

  await bind();
  const sub = core.events.subscribe((m) => {
    if (m.name === 'app.status' && core.status.get().docker.state === 'available') void bind();
  });
  return {
    url: () => url,
    close: async () => {
      closed = true;
      sub.dispose();
      core.delegation.listening(null);
      const s = server;
      server = null;
      if (!s) return;
      await new Promise<void>((resolve) => {
        s.close(() => resolve());
        s.closeAllConnections();
      });
    },
  };
}

function listen(s: Server, host: string, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const onError = (e: Error): void => reject(e);
    s.once('error', onError);
    s.listen(port, host, () => {
      s.off('error', onError);
      resolve((s.address() as AddressInfo).port);
    });
  });
}
