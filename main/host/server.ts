import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { httpStatusOf, NexusError, type WireError } from '../../shared/errors';
import type { CoreApi } from '../core';
import { operatorContext } from '../core/handlers';
import { readJsonBody, sendJson } from '../core/http-json';
import { allowList, checkHostAndOrigin, LOOPBACK_NAMES, type AllowList } from './guard';
import { SessionAuth } from './session-auth';
import { matchRoute, splitUrl } from './routes';
import { openEventStream } from './event-stream';
import { CONTENT_SECURITY_POLICY, loadStaticFiles } from './static-files';
import { localTerminalAdmission, terminalEndpoint, type TerminalEndpointDeps } from './terminal';
import type { PublicFront } from './public-origin';

/** A route served by another component (the MCP endpoint); it does its own authentication. */
export interface Mount {
  path: string;
  handle(req: IncomingMessage, res: ServerResponse): Promise<void> | void;
}

export interface HostOptions {
  port: number;
  /** Loopback only; a test may pass another loopback address. */
  bindAddress?: string;
  rendererDir: string;
  token?: string;
  mounts?: Mount[];
  /** Sessions' live terminals behind /api/terminal/<id> (default: core.terminals). */
  terminals?: TerminalEndpointDeps['terminals'];
  /** Remote connectors (docs/remote.md): requests whose Host is the public origin's name go there and nowhere else. */
  publicFront?: PublicFront;
}

export interface Host {
  port: number;
  url: string;
  token: string;
  /** The URL that logs the browser in: hand it over once. */
  loginUrl: string;
  close(): Promise<void>;
}

const MAX_BODY = 1024 * 1024;

/**
 * On every response this host sends: written with the head of its own answers (JSON, files, the
 * login redirect), so most responses are one `writeHead`, and set first on the response for any
 * code that answers by itself (a mount, the public front, the event stream).
 */
const SECURITY_HEADERS: readonly string[] = ['x-content-type-options', 'nosniff', 'referrer-policy', 'no-referrer'];
const secure = (res: ServerResponse): ServerResponse =>
  res.setHeader('x-content-type-options', 'nosniff').setHeader('referrer-policy', 'no-referrer');

export async function startHost(core: CoreApi, opts: HostOptions): Promise<Host> {
  const auth = new SessionAuth(opts.token);
  const assets = loadStaticFiles(opts.rendererDir);
  const assetPaths = new Set([...assets.keys()].filter((p) => p !== '/index.html'));
  const mounts = new Map((opts.mounts ?? []).map((m) => [m.path, m]));
  const mountPaths = new Set(mounts.keys());
  let allowed: AllowList = allowList([], 0);
  const streams = new Set<ServerResponse>();

  let listening = 0;

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    // A preview origin (docs/previews.md) is the session's app and nothing of Nexus: no route below is ever served there.
    const preview = core.previews.match(req, listening);
    if (preview) return core.previews.handle(req, res, preview);
    if (opts.publicFront?.matches(req)) return opts.publicFront.handle(req, secure(res)); // the public origin's own routes
    const guard = checkHostAndOrigin(req, allowed);
    if (!guard.ok) return sendError(res, 403, { code: 'forbidden', message: guard.reason });

    const { path, query } = splitUrl(req.url ?? '/');
    const route = matchRoute(req.method ?? 'GET', path, mountPaths, assetPaths);
    if (!route) return sendError(res, 404, { code: 'not_found', message: 'No such route.' });

    if (route.kind === 'mount') return void (await mounts.get(route.path)?.handle(req, secure(res)));

    if (route.kind === 'login' && query.has('token')) {
      if (!auth.isValidToken(query.get('token')))
        return sendError(res, 401, {
          code: 'unauthorized',
          message: 'That link is not valid for this start of Nexus.',
        });
      res.writeHead(303, [
        'location',
        '/',
        'set-cookie',
        auth.setCookieHeader(),
        'cache-control',
        'no-store',
        ...SECURITY_HEADERS,
      ]);
      return void res.end();
    }
    if (query.has('token'))
      return sendError(res, 400, { code: 'bad_request', message: 'Credentials are not accepted in the query string.' });
    if (!auth.isAuthenticated(req)) {
      res.setHeader('www-authenticate', 'Bearer realm="nexus"');
      return sendError(res, 401, {
        code: 'unauthorized',
        message: 'Open the link printed when Nexus started, or send its token as a Bearer header.',
      });
    }

    switch (route.kind) {
      case 'login':
        return sendFile(res, assets.get('/index.html'));
      case 'asset':
        return sendFile(res, assets.get(route.path));
      case 'events':
        return openEventStream(req, secure(res), core.events, streams);
      case 'rpc': {
        const body = await readJsonBody(req, MAX_BODY);
        try {
          const result = await core.dispatcher.call(route.op, body, operatorContext('http'));
          return sendJson(res, 200, { result }, SECURITY_HEADERS);
        } catch (e) {
          const wire = e instanceof NexusError ? e.toWire() : core.dispatcher.toWire(e, route.op);
          return sendError(res, httpStatusOf[wire.code], wire);
        }
      }
    }
  };

  const server: Server = createServer((req, res) => {
    handle(req, res).catch((e: unknown) => {
      const wire = e instanceof NexusError ? e.toWire() : core.dispatcher.toWire(e, 'http');
      if (!res.headersSent) sendError(res, httpStatusOf[wire.code], wire);
      else res.destroy();
    });
  });
  server.keepAliveTimeout = 5000;
  const terminals = opts.terminals ?? core.terminals;
  const log = core.log.child({ component: 'terminal' });
  const terminal = terminalEndpoint({ terminals, admit: localTerminalAdmission(auth, () => allowed), log });
  // On the public Host: the phone's terminal (docs/remote.md) when the phone UI is on, else no route.
  const publicFront = opts.publicFront;
  const phoneTerminal = publicFront
    ? terminalEndpoint({
        terminals,
        admit: (req) => publicFront.admitTerminal(req),
        stillAdmitted: (req) => publicFront.terminalStillAdmitted(req),
        log,
      })
    : null;
  server.on('upgrade', (req, socket, head) => {
    const preview = core.previews.match(req, listening);
    if (preview) return core.previews.upgrade(req, socket, head, preview);
    if (publicFront?.matches(req)) return phoneTerminal?.upgrade(req, socket, head);
    terminal.upgrade(req, socket, head);
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, opts.bindAddress ?? '127.0.0.1', () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  listening = port;
  allowed = allowList(LOOPBACK_NAMES, port);
  const url = `http://127.0.0.1:${port}`;
  core.log.info('host listening', { url });

  return {
    port,
    url,
    token: auth.token,
    loginUrl: `${url}/?token=${auth.token}`,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of streams) s.end();
        terminal.close();
        phoneTerminal?.close();
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

function sendError(res: ServerResponse, status: number, error: WireError): void {
  sendJson(res, status, { error }, SECURITY_HEADERS);
}

function sendFile(res: ServerResponse, file: { body: Buffer; type: string } | undefined): void {
  if (!file) return sendError(res, 404, { code: 'not_found', message: 'The UI has not been built (npm run build).' });
  res.writeHead(200, [
    'content-type',
    file.type,
    'content-length',
    String(file.body.length),
    'content-security-policy',
    CONTENT_SECURITY_POLICY,
    'cache-control',
    'no-cache',
    ...SECURITY_HEADERS,
  ]);
  res.end(file.body);
}
