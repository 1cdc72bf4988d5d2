import type { IncomingMessage, ServerResponse } from 'node:http';
import { z } from 'zod';
import { httpStatusOf, NexusError, type WireError } from '../../../shared/errors';
import type { Dispatcher } from '../dispatch';
import { operatorContext } from '../handlers';
import { readJsonBody, sendJson } from '../http-json';
import { operations } from '../../../shared/contract';
import { checkCsrf, checkCsrfProtocol, csrfTokenFor } from './csrf';
import { isPhoneOperation } from './phone-operations';
import { phoneActor, type PhoneService } from './phone-service';

/** The phone session's cookie: `__Host-` (Secure, Path=/, no Domain), HttpOnly, SameSite=Strict. */
export const PHONE_COOKIE = '__Host-nexus-remote';

/** The UI's Content-Security-Policy on the public origin: the local UI's, and never in a frame. */
export const PHONE_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "worker-src 'self'",
  "manifest-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

/** What a request on the public Host may reach of the phone UI (with the phone UI on); the rest is 404. */
export type PhoneRoute =
  | { kind: 'page' }
  | { kind: 'asset'; path: string }
  | { kind: 'session' }
  | { kind: 'register-options' }
  | { kind: 'register' }
  | { kind: 'signin-options' }
  | { kind: 'signin' }
  | { kind: 'signout' }
  | { kind: 'push-key' }
  | { kind: 'push-subscribe' }
  | { kind: 'rpc'; op: string };

const RPC = /^\/api\/rpc\/([a-z][A-Za-z]*(?:\.[a-z][A-Za-z]*)+)$/;
const CEREMONIES: Record<string, PhoneRoute['kind']> = {
  '/api/phone/register/options': 'register-options',
  '/api/phone/register': 'register',
  '/api/phone/signin/options': 'signin-options',
  '/api/phone/signin': 'signin',
  '/api/phone/signout': 'signout',
  '/api/phone/push/subscribe': 'push-subscribe',
};

/**
 * Exact routing on the raw path. An operation not on the phone's allow-list is no route (404), as
 * is every path the local UI has and the phone does not (/api/events, the terminal, `/?token=`).
 * Assets are the built renderer's files, by exact name.
 */
export function matchPhoneRoute(method: string, path: string, assets: ReadonlySet<string>): PhoneRoute | null {
  if (method === 'POST') {
    const rpc = RPC.exec(path);
    if (rpc) return isPhoneOperation(rpc[1] ?? '') ? { kind: 'rpc', op: rpc[1] ?? '' } : null;
    const kind = CEREMONIES[path];
    return kind ? ({ kind } as PhoneRoute) : null;
  }
  if (method !== 'GET' && method !== 'HEAD') return null;
  if (path === '/') return { kind: 'page' };
  if (path === '/api/phone/session') return { kind: 'session' };
  if (path === '/api/phone/push/key') return { kind: 'push-key' };
  if (assets.has(path) && path !== '/index.html') return { kind: 'asset', path };
  return null;
}

export interface PhoneFront {
  /** Whether the phone UI answers on the public origin now. */
  enabled(): boolean;
  route(method: string, path: string): PhoneRoute | null;
  handle(req: IncomingMessage, res: ServerResponse, route: PhoneRoute): Promise<void>;
  /**
   * The live terminal on the public origin (`/api/terminal/<id>` upgrades): the signed-in phone's
   * session only (the operator's own, as the local terminal takes the UI's cookie only), its Origin
   * the public origin, its CSRF token offered as a subprotocol. Each opening is audited.
   */
  admitTerminal(req: IncomingMessage): { ok: true } | { ok: false; status: number; message: string };
  /** Whether the request's phone session is still good (an open terminal is closed once it is not). */
  signedIn(req: IncomingMessage): boolean;
}

const TokenBody = z.object({ token: z.string().min(16).max(100) }).strict();
const RegisterBody = z
  .object({ token: z.string().min(16).max(100), response: z.record(z.string(), z.unknown()) })
  .strict();
const SignInBody = z.object({ response: z.record(z.string(), z.unknown()) }).strict();
const Base64Url = z
  .string()
  .regex(/^[A-Za-z0-9_-]+=*$/)
  .max(200);
const SubscribeBody = z
  .object({
    endpoint: z.url({ protocol: /^https?$/ }).max(2000),
    keys: z.object({ p256dh: Base64Url, auth: Base64Url }),
  })
  .strip();
const MAX_BODY = 256 * 1024;

/**
 * The operator UI on the public origin: the same built renderer (it shows its phone shell there),
 * passkey sign-in, and /api/rpc for the allow-listed operations only, as the operator, through
 * the one dispatcher. Every state-changing request needs the public Origin and, signed in, the
 * session's CSRF header; every remote decision is audited under the phone's name.
 */
export function createPhoneFront(deps: {
  phone: PhoneService;
  dispatcher: Pick<Dispatcher, 'call' | 'toWire'>;
  assets: Map<string, { body: Buffer; type: string }>;
}): PhoneFront {
  const { phone } = deps;
  const assetPaths = new Set(deps.assets.keys());

  const sendFile = (res: ServerResponse, path: string): void => {
    const file = deps.assets.get(path);
    if (!file) return fail(res, { code: 'not_found', message: 'The UI has not been built (npm run build).' });
    res.writeHead(200, {
      'content-type': file.type,
      'content-length': file.body.length,
      'content-security-policy': PHONE_CSP,
      'x-frame-options': 'DENY',
      'cache-control': 'no-cache',
      ...(path === '/sw.js' ? { 'service-worker-allowed': '/' } : {}),
    });
    res.end(file.body);
  };

  const readJson = (req: IncomingMessage): Promise<unknown> => readJsonBody(req, MAX_BODY);

  const parse = <T>(schema: z.ZodType<T>, value: unknown): T => {
    const parsed = schema.safeParse(value);
    if (!parsed.success) throw new NexusError('bad_request', 'Malformed request.');
    return parsed.data;
  };

  return {
    enabled: () => phone.origin() !== null,
    route: (method, path) => matchPhoneRoute(method, path, assetPaths),
    signedIn: (req) => phone.authenticate(readCookieValue(req.headers.cookie, PHONE_COOKIE)) !== null,
    admitTerminal: (req) => {
      const origin = phone.origin();
      if (!origin) return { ok: false, status: 404, message: 'No such route.' };
      const secret = readCookieValue(req.headers.cookie, PHONE_COOKIE);
      const caller = phone.authenticate(secret);
      if (!caller || !secret || req.headers.authorization !== undefined)
        return { ok: false, status: 401, message: 'Sign in with your passkey.' };
      if (!checkCsrfProtocol(req, origin, secret)) {
        phone.audit('remote:terminal', phoneActor(caller.deviceId), 'forbidden');
        return { ok: false, status: 403, message: 'Cross-site request refused (Origin or CSRF token).' };
      }
      phone.audit('remote:terminal', phoneActor(caller.deviceId), 'ok');
      return { ok: true };
    },
    handle: async (req, res, route) => {
      const origin = phone.origin();
      if (!origin) return fail(res, { code: 'not_found', message: 'No such route.' });
      res.setHeader('cache-control', 'no-store');
      res.setHeader('content-security-policy', PHONE_CSP);
      res.setHeader('x-frame-options', 'DENY');
      if (route.kind === 'page') return sendFile(res, '/index.html');
      if (route.kind === 'asset') return sendFile(res, route.path);
      const secret = readCookieValue(req.headers.cookie, PHONE_COOKIE);
      const caller = phone.authenticate(secret);
      if (route.kind === 'session')
        return sendJson(res, 200, {
          signedIn: caller !== null,
          device: caller?.deviceName ?? null,
          csrf: caller && secret ? csrfTokenFor(secret) : null,
        });
      if (route.kind === 'push-key') {
        if (!caller) return fail(res, { code: 'unauthorized', message: 'Sign in with your passkey.' });
        return sendJson(res, 200, await phone.push.publicKey());
      }
      const signedInRoute = route.kind === 'rpc' || route.kind === 'signout' || route.kind === 'push-subscribe';
      // Everything below changes state (or could): the page itself, and signed-in with its CSRF header.
      if (!checkCsrf(req, origin, signedInRoute ? (caller ? secret : null) : null))
        return fail(res, { code: 'forbidden', message: 'Cross-site request refused (Origin or CSRF token).' });
      try {
        switch (route.kind) {
          case 'register-options':
            return sendJson(res, 200, await phone.registrationOptions(parse(TokenBody, await readJson(req)).token));
          case 'register': {
            const body = parse(RegisterBody, await readJson(req));
            return sendJson(res, 200, { device: await phone.register(body.token, body.response as never) });
          }
          case 'signin-options':
            return sendJson(res, 200, await phone.signInOptions());
          case 'signin': {
            const body = parse(SignInBody, await readJson(req));
            const session = await phone.signIn(body.response as never);
            res.setHeader(
              'set-cookie',
              `${PHONE_COOKIE}=${session.secret}; Secure; HttpOnly; SameSite=Strict; Path=/; Max-Age=${Math.floor((session.expiresAt.getTime() - Date.now()) / 1000)}`,
            );
            return sendJson(res, 200, {
              signedIn: true,
              device: session.caller.deviceName,
              csrf: csrfTokenFor(session.secret),
            });
          }
          case 'signout':
            if (secret) phone.signOut(secret);
            res.setHeader('set-cookie', `${PHONE_COOKIE}=; Secure; HttpOnly; SameSite=Strict; Path=/; Max-Age=0`);
            return sendJson(res, 200, { signedIn: false });
          case 'push-subscribe': {
            if (!caller) return fail(res, { code: 'unauthorized', message: 'Sign in with your passkey.' });
            phone.push.subscribe(caller.deviceId, parse(SubscribeBody, await readJson(req)));
            phone.audit('phone:subscribe', phoneActor(caller.deviceId), 'ok');
            return sendJson(res, 200, { subscribed: true });
          }
          case 'rpc': {
            if (!caller || !secret) return fail(res, { code: 'unauthorized', message: 'Sign in with your passkey.' });
            const body = await readJson(req);
            const access = isOpName(route.op) ? operations[route.op].access : 'read';
            try {
              const result = await deps.dispatcher.call(route.op, body, operatorContext('remote'));
              if (access !== 'read') phone.audit(`remote:${route.op}`, phoneActor(caller.deviceId), 'ok');
              return sendJson(res, 200, { result });
            } catch (e) {
              const wire = e instanceof NexusError ? e.toWire() : deps.dispatcher.toWire(e, route.op);
              if (access !== 'read') phone.audit(`remote:${route.op}`, phoneActor(caller.deviceId), wire.code);
              return fail(res, wire);
            }
          }
        }
      } catch (e) {
        return fail(res, e instanceof NexusError ? e.toWire() : deps.dispatcher.toWire(e, 'phone'));
      }
    },
  };
}

const isOpName = (op: string): op is keyof typeof operations => Object.hasOwn(operations, op);

function fail(res: ServerResponse, error: WireError): void {
  sendJson(res, httpStatusOf[error.code], { error });
}

function readCookieValue(header: string | undefined, name: string): string | null {
  if (!header) return null;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim() || null;
  }
  return null;
}
