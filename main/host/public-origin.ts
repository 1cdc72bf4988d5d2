import type { IncomingMessage, ServerResponse } from 'node:http';
import { parseJsonBody, readBody, sendJson } from '../core/http-json';
import {
  type ConnectorService,
  AUTHORIZATION_SERVER_METADATA_PATH,
  MCP_RESOURCE_PATH,
  OAUTH_PATHS,
  PROTECTED_RESOURCE_METADATA_PATH,
} from '../core/connectors';
import type { PhoneFront } from '../core/phone';
import { splitUrl } from './routes';
import type { TerminalAdmission } from './terminal';

/** What a request on the public Host may reach; everything else is no route (404). */
type PublicRoute =
  | { kind: 'resource-metadata' }
  | { kind: 'server-metadata' }
  | { kind: 'authorize' }
  | { kind: 'oauth' }
  | { kind: 'register' }
  | { kind: 'consent'; uid: string }
  | { kind: 'mcp' };

const UID = /^[A-Za-z0-9_-]{16,64}$/;

/** Exact, case-sensitive routing on the raw path, like the loopback host's (no encoding, no trailing slash). */
export function matchPublicRoute(method: string, path: string): PublicRoute | null {
  if (path === MCP_RESOURCE_PATH) return method === 'POST' || method === 'GET' ? { kind: 'mcp' } : null;
  if (method === 'GET' && path === PROTECTED_RESOURCE_METADATA_PATH) return { kind: 'resource-metadata' };
  if (method === 'GET' && path === AUTHORIZATION_SERVER_METADATA_PATH) return { kind: 'server-metadata' };
  if (method === 'GET' && path === OAUTH_PATHS.authorization) return { kind: 'authorize' };
  if (method === 'GET' && path.startsWith(`${OAUTH_PATHS.authorization}/`)) {
    return UID.test(path.slice(OAUTH_PATHS.authorization.length + 1)) ? { kind: 'oauth' } : null;
  }
  if (method === 'GET' && path.startsWith(`${OAUTH_PATHS.consent}/`)) {
    const uid = path.slice(OAUTH_PATHS.consent.length + 1);
    return UID.test(uid) ? { kind: 'consent', uid } : null;
  }
  if (method === 'POST' && path === OAUTH_PATHS.registration) return { kind: 'register' };
  if (method === 'POST' && (path === OAUTH_PATHS.token || path === OAUTH_PATHS.revocation)) return { kind: 'oauth' };
  if (method === 'GET' && path === OAUTH_PATHS.jwks) return { kind: 'oauth' };
  return null;
}

const MAX_REGISTRATION_BYTES = 16 * 1024;

/** Dynamic registrations allowed per window (the tunnel delivers from loopback, so the limit is global). */
export const REGISTRATION_LIMIT = { count: 10, windowMs: 10 * 60_000 };

export interface PublicFront {
  /** Whether this request's Host is the public name (then nothing else on the host may serve it). */
  matches(req: IncomingMessage): boolean;
  handle(req: IncomingMessage, res: ServerResponse): Promise<void>;
  /** A terminal WebSocket on the public Host: the phone's signed-in session only, else no route (404). */
  admitTerminal(req: IncomingMessage): TerminalAdmission;
  /** Whether an open terminal's phone is still signed in (revoked, signed out, expired or the phone UI off: no). */
  terminalStillAdmitted(req: IncomingMessage): boolean;
}

/**
 * The public origin's side of the host (docs/remote.md). A request whose Host is the public name reaches
 * only the two metadata documents, the OAuth endpoints, the consent page and /api/mcp (through the
 * MCP gate in its public mode); the UI, /api/rpc, /api/events and the terminal answer 404. The
 * tunnel delivers from loopback, so the source address is never taken as proof of anything here.
 */
export function createPublicFront(
  remote: ConnectorService,
  mcp: (req: IncomingMessage, res: ServerResponse) => Promise<void>,
  now: () => number = () => Date.now(),
  phone?: PhoneFront,
): PublicFront {
  let window = { start: now(), used: 0 };
  const registrationAllowed = (): boolean => {
    if (now() - window.start >= REGISTRATION_LIMIT.windowMs) window = { start: now(), used: 0 };
    window.used += 1;
    return window.used <= REGISTRATION_LIMIT.count;
  };

  return {
    matches: (req) => {
      const host = remote.publicHost();
      return host !== null && req.headers.host === host;
    },
    admitTerminal: (req) =>
      phone?.enabled() ? phone.admitTerminal(req) : { ok: false, status: 404, message: 'No such route.' },
    terminalStillAdmitted: (req) => phone?.enabled() === true && phone.signedIn(req),
    handle: async (req, res) => {
      // Host matched in `matches`; an Origin, when present, must be the public origin itself (once, for every route).
      const origin = req.headers.origin;
      if (origin !== undefined && origin !== remote.origin())
        return sendJson(res, 403, { error: { code: 'forbidden', message: 'Origin not allowed.' } });
      const { path, query } = splitUrl(req.url ?? '/');
      const route = matchPublicRoute(req.method ?? 'GET', path);
      // The operator's phone UI (docs/remote.md), when turned on: its own exact routes, never with a query string.
      const phoneRoute = !route && phone?.enabled() && query.size === 0 ? phone.route(req.method ?? 'GET', path) : null;
      if (phoneRoute) return phone?.handle(req, res, phoneRoute);
      if (!route) return sendJson(res, 404, { error: { code: 'not_found', message: 'No such route.' } });
      res.setHeader('content-security-policy', "default-src 'none'; frame-ancestors 'none'");
      res.setHeader('x-frame-options', 'DENY');
      if (route.kind === 'mcp') return mcp(req, res);
      if (route.kind === 'resource-metadata') return sendJson(res, 200, remote.protectedResourceMetadata());
      if (route.kind === 'consent') return remote.consent(req, res, route.uid);

      const server = await remote.authorizationServer();
      if (!server) return sendJson(res, 404, { error: { code: 'not_found', message: 'No such route.' } });
      if (route.kind === 'register' && !registrationAllowed()) {
        res.setHeader('retry-after', String(Math.ceil(REGISTRATION_LIMIT.windowMs / 1000)));
        return sendJson(res, 429, { error: 'too_many_requests', error_description: 'Too many registrations; wait.' });
      }
      if (route.kind === 'register') {
        // The scopes here name what the MCP resource grants, not OpenID scopes: a client's `scope`
        // (the SDK copies the resource's scopes_supported) is dropped; the operator decides the class.
        let metadata: unknown;
        try {
          metadata = parseJsonBody(await readBody(req, MAX_REGISTRATION_BYTES));
        } catch {
          return sendJson(res, 400, {
            error: 'invalid_client_metadata',
            error_description: 'Send JSON client metadata.',
          });
        }
        if (typeof metadata !== 'object' || metadata === null || Array.isArray(metadata))
          return sendJson(res, 400, { error: 'invalid_client_metadata', error_description: 'Send a JSON object.' });
        const { scope: _scope, ...rest } = metadata as Record<string, unknown>;
        (req as IncomingMessage & { body?: unknown }).body = rest;
      }
      if (route.kind === 'authorize') {
        const scope = query.get('scope');
        if (scope?.split(' ').some((s) => s.startsWith('nexus:') && s !== 'nexus:read' && s !== 'nexus:write'))
          return sendJson(res, 400, {
            error: 'invalid_scope',
            error_description: 'Only nexus:read and nexus:write can be granted over OAuth (never vault).',
          });
        // Every request asks at least for read (else one approved as read would be granted nothing);
        // the operator decides the class.
        if (!scope?.split(' ').includes('nexus:read')) {
          query.set('scope', scope ? `${scope} nexus:read` : 'nexus:read');
          req.url = `${path}?${query.toString()}`;
        }
      }
      if (route.kind === 'server-metadata') req.url = '/.well-known/openid-configuration';
      // The tunnel terminates TLS; the origin is https by configuration, never by a header the client sent.
      for (const name of Object.keys(req.headers)) if (name.startsWith('x-forwarded-')) delete req.headers[name];
      req.headers['x-forwarded-proto'] = 'https';
      server.handle(req, res);
    },
  };
}
