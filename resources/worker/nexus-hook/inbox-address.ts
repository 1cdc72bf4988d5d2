/**
 * Where a session's inbox is (docs/sessions.md, "Messages"): `<stateDir>/<sessionId>/inbox.json`,
 * dir 0700, file 0600, `{socket, token, agentSessionId}`, read by nexus-inbox-send. Written at the
 * agent's SessionStart, from CLAUDE_CODE_MESSAGING_SOCKET/_TOKEN in the hook's environment and the
 * event's session_id, by the hook relay (the hook hands it both) or, when the relay is not there, by
 * the Node hook command itself.
 */
import { chmodSync, mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { ID } from './event';

export interface InboxAddress {
  socket: string;
  token: string;
  agentSessionId: unknown;
}

/** A socket path the agent could have exported: absolute, no NUL, short enough for a header. */
const SOCKET = /^\/[^\0\r\n]{1,4000}$/;
const TOKEN = /^[^\0\r\n]{0,4000}$/;

/** The address, checked; null when one of its parts is not one the agent would give. */
export function inboxAddress(socket: unknown, token: unknown, agentSessionId: unknown): InboxAddress | null {
  if (typeof socket !== 'string' || !SOCKET.test(socket)) return null;
  const t = token ?? '';
  if (typeof t !== 'string' || !TOKEN.test(t)) return null;
  return { socket, token: t, agentSessionId };
}

/** Writes the session's inbox.json (whole or not at all: a reader never sees half a file). */
export function writeInboxAddress(stateDir: string, sessionId: string, address: InboxAddress): void {
  if (!ID.test(sessionId)) throw new Error('not a session id');
  const dir = `${stateDir}/${sessionId}`;
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const file = `${dir}/inbox.json`;
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, JSON.stringify(address), { mode: 0o600 });
  chmodSync(tmp, 0o600);
  renameSync(tmp, file);
}
