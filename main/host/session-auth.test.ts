import type { IncomingMessage } from 'node:http';
import { describe, expect, it } from 'vitest';
import { COOKIE_NAME, SessionAuth } from './session-auth';

const request = (headers: IncomingMessage['headers']): IncomingMessage => ({ headers }) as IncomingMessage;
const cookieOf = (auth: SessionAuth): string => auth.setCookieHeader().split(';')[0] ?? '';

describe('SessionAuth', () => {
  const auth = new SessionAuth();
  const last = auth.token.at(-1) === 'A' ? 'B' : 'A';

  it('accepts its start token, as a link token and as a Bearer header, and nothing else', () => {
    expect(auth.isValidToken(auth.token)).toBe(true);
    expect(auth.isAuthenticated(request({ authorization: `Bearer ${auth.token}` }))).toBe(true);
    for (const wrong of [`${auth.token.slice(0, -1)}${last}`, auth.token.slice(0, -1), `${auth.token}x`, '', 'nope'])
      expect(auth.isValidToken(wrong)).toBe(false);
    expect(auth.isValidToken(null)).toBe(false);
    expect(auth.isAuthenticated(request({ authorization: `Bearer ${auth.token.slice(0, -1)}${last}` }))).toBe(false);
    expect(auth.isAuthenticated(request({ authorization: `Basic ${auth.token}` }))).toBe(false);
  });

  it('accepts its own UI cookie, never the start token as a cookie or another start of Nexus', () => {
    expect(auth.isAuthenticated(request({ cookie: `a=1; ${cookieOf(auth)}` }))).toBe(true);
    expect(auth.hasUiCookie(request({ cookie: `${COOKIE_NAME}=${auth.token}` }))).toBe(false);
    expect(auth.hasUiCookie(request({ cookie: cookieOf(new SessionAuth(auth.token)) }))).toBe(false);
    expect(auth.isAuthenticated(request({}))).toBe(false);
  });
});
