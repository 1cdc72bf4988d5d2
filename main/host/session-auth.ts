import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

export const COOKIE_NAME = 'nexus_session';

const digest = (s: string): Buffer => createHash('sha256').update(s).digest();
/** Constant-time comparison of two strings of any length (compares their digests). */
export const sameSecret = (a: string, b: string): boolean => timingSafeEqual(digest(a), digest(b));

/**
 * The UI's credential: a random token made at each start, handed over once in the printed URL and
 * exchanged for an HttpOnly SameSite=Strict cookie (a second random value, so the URL token is not
 * what sits in the browser). Scripts may send the token as `Authorization: Bearer`.
 */
export class SessionAuth {
  readonly token: string;
  private readonly cookieValue = randomBytes(32).toString('base64url');

  constructor(token?: string) {
    this.token = token ?? randomBytes(32).toString('base64url');
  }

  isValidToken(candidate: string | null | undefined): boolean {
    return typeof candidate === 'string' && candidate.length > 0 && sameSecret(candidate, this.token);
  }

  setCookieHeader(): string {
    return `${COOKIE_NAME}=${this.cookieValue}; HttpOnly; SameSite=Strict; Path=/`;
  }

  isAuthenticated(req: IncomingMessage): boolean {
    const auth = req.headers.authorization;
    if (auth !== undefined) {
      const m = /^Bearer ([A-Za-z0-9._~+/=-]+)$/.exec(auth);
      return m !== null && this.isValidToken(m[1]);
    }
    return this.hasUiCookie(req);
  }

  /** The UI's cookie alone (the terminal WebSocket accepts nothing else). */
  hasUiCookie(req: IncomingMessage): boolean {
    const cookie = readCookie(req.headers.cookie, COOKIE_NAME);
    return cookie !== null && sameSecret(cookie, this.cookieValue);
  }
}

export function readCookie(header: string | undefined, name: string): string | null {
  if (!header) return null;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return null;
}
