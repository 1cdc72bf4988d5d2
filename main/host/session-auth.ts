import { hash, randomBytes } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

export const COOKIE_NAME = 'nexus_session';

/** One-shot SHA-256 as base64 text: no Hash object and no Buffer (an ArrayBuffer of its own) per request. */
const digest = (s: string): string => hash('sha256', s, 'base64');
/**
 * Constant-time comparison of a string of any length with a secret's digest, made once: both
 * digests are 44 characters, and every character is compared whatever the first difference.
 */
const matches = (candidate: string, expected: string): boolean => {
  const got = digest(candidate);
  let diff = got.length ^ expected.length;
  for (let i = 0; i < expected.length; i++) diff |= got.charCodeAt(i) ^ expected.charCodeAt(i);
  return diff === 0;
};

/**
 * The UI's credential: a random token made at each start, handed over once in the printed URL and
 * exchanged for an HttpOnly SameSite=Strict cookie (a second random value, so the URL token is not
 * what sits in the browser). Scripts may send the token as `Authorization: Bearer`.
 */
export class SessionAuth {
  readonly token: string;
  private readonly cookieValue = randomBytes(32).toString('base64url');
  private readonly tokenDigest: string;
  private readonly cookieDigest = digest(this.cookieValue);

  constructor(token?: string) {
    this.token = token ?? randomBytes(32).toString('base64url');
    this.tokenDigest = digest(this.token);
  }

  isValidToken(candidate: string | null | undefined): boolean {
    return typeof candidate === 'string' && candidate.length > 0 && matches(candidate, this.tokenDigest);
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
    return cookie !== null && matches(cookie, this.cookieDigest);
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
