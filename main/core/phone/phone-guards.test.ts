import type { IncomingMessage } from 'node:http';
import { describe, expect, it } from 'vitest';
import { opNames } from '../../../shared/contract';
import { checkCsrf, csrfTokenFor, CSRF_HEADER } from './csrf';
import { Challenges, CHALLENGE_TTL_MS } from './passkeys';
import { matchPhoneRoute } from './phone-front';
import { PHONE_OPERATIONS } from './phone-operations';

const ORIGIN = 'https://nexus.example.test';
const req = (headers: Record<string, string>): IncomingMessage => ({ headers }) as unknown as IncomingMessage;

describe('the CSRF check of the phone', () => {
  it('accepts the page itself: its Origin and, signed in, the token derived from its own session', () => {
    expect(checkCsrf(req({ origin: ORIGIN }), ORIGIN, null)).toBe(true);
    expect(checkCsrf(req({ origin: ORIGIN, [CSRF_HEADER]: csrfTokenFor('s1') }), ORIGIN, 's1')).toBe(true);
  });

  it('refuses a missing or foreign Origin, a missing token and the token of another session', () => {
    expect(checkCsrf(req({}), ORIGIN, null)).toBe(false);
    expect(checkCsrf(req({ origin: 'null' }), ORIGIN, null)).toBe(false);
    expect(checkCsrf(req({ origin: 'https://evil.example', [CSRF_HEADER]: csrfTokenFor('s1') }), ORIGIN, 's1')).toBe(
      false,
    );
    expect(checkCsrf(req({ origin: ORIGIN }), ORIGIN, 's1')).toBe(false);
    expect(checkCsrf(req({ origin: ORIGIN, [CSRF_HEADER]: csrfTokenFor('s2') }), ORIGIN, 's1')).toBe(false);
  });
});

describe('what a phone can reach on the public origin', () => {
  const assets = new Set(['/index.html', '/assets/app.js', '/sw.js', '/manifest.json']);

  it('routes an allow-listed operation and nothing else; vault, secrets, tokens, engines and access are no route', () => {
    for (const op of opNames) {
      const route = matchPhoneRoute('POST', `/api/rpc/${op}`, assets);
      expect(route !== null, op).toBe(PHONE_OPERATIONS.has(op));
    }
    for (const op of ['vault.unlock', 'secrets.list', 'tokens.create', 'agent.get', 'remote.approve', 'phone.invite'])
      expect(matchPhoneRoute('POST', `/api/rpc/${op}`, assets)).toBeNull();
  });

  it('serves the page, the built files by exact name and the ceremonies; not index.html, events or a near miss', () => {
    expect(matchPhoneRoute('GET', '/', assets)).toEqual({ kind: 'page' });
    expect(matchPhoneRoute('GET', '/sw.js', assets)).toEqual({ kind: 'asset', path: '/sw.js' });
    expect(matchPhoneRoute('POST', '/api/phone/signin', assets)).toEqual({ kind: 'signin' });
    for (const [method, path] of [
      ['GET', '/index.html'],
      ['GET', '/api/events'],
      ['GET', '/api/terminal/s1'],
      ['POST', '/api/rpc/Permissions.list'],
      ['POST', '/api/rpc/permissions.list/'],
      ['GET', '/api/rpc/permissions.list'],
      ['GET', '/api/phone/signin'],
      ['DELETE', '/'],
    ] as const)
      expect(matchPhoneRoute(method, path, assets), `${method} ${path}`).toBeNull();
  });
});

describe('passkey challenges', () => {
  it('are answerable once, for their own ceremony, before they expire', () => {
    let now = 0;
    const challenges = new Challenges(() => now);
    challenges.add('c1', 'signin');
    expect(challenges.take('c1', 'signin')).toBe(true);
    expect(challenges.take('c1', 'signin')).toBe(false);
    challenges.add('c2', 'register:t');
    expect(challenges.take('c2', 'signin')).toBe(false);
    challenges.add('c3', 'signin');
    now = CHALLENGE_TTL_MS + 1;
    expect(challenges.take('c3', 'signin')).toBe(false);
  });
});
