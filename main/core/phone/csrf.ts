import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { TERMINAL_CSRF_PROTOCOL_PREFIX } from '../../../shared/terminal';

/** The header every state-changing request of a signed-in phone carries. */
export const CSRF_HEADER = 'x-nexus-csrf';

/** The CSRF token of a phone session: derived from its cookie value (never stored), handed to the page once signed in. */
export const csrfTokenFor = (sessionSecret: string): string =>
  createHash('sha256').update(`nexus-phone-csrf:${sessionSecret}`).digest('base64url');

/**
 * A state-changing request on the public origin must come from the phone page itself: its Origin
 * is present and is the public origin (a cross-site form or fetch carries its own, or `null`), and,
 * once signed in, it carries the session's CSRF token in a header a cross-site form cannot set.
 */
export function checkCsrf(req: IncomingMessage, origin: string, sessionSecret: string | null): boolean {
  if (req.headers.origin !== origin) return false;
  if (sessionSecret === null) return true;
  return csrfTokenMatches(req.headers[CSRF_HEADER], sessionSecret);
}

/** The terminal upgrade's check: its Origin is the public origin and it offers the session's CSRF token. */
export function checkCsrfProtocol(req: IncomingMessage, origin: string, sessionSecret: string): boolean {
  if (req.headers.origin !== origin) return false;
  const offered = (req.headers['sec-websocket-protocol'] ?? '').split(',').map((p) => p.trim());
  const sent = offered
    .find((p) => p.startsWith(TERMINAL_CSRF_PROTOCOL_PREFIX))
    ?.slice(TERMINAL_CSRF_PROTOCOL_PREFIX.length);
  return csrfTokenMatches(sent, sessionSecret);
}

function csrfTokenMatches(sent: string | string[] | undefined, sessionSecret: string): boolean {
  if (typeof sent !== 'string' || sent.length === 0) return false;
  const a = createHash('sha256').update(sent).digest();
  const b = createHash('sha256').update(csrfTokenFor(sessionSecret)).digest();
  return timingSafeEqual(a, b);
}
