import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { ID, decisionOutput, hookMessage, permissionAsk } from '../nexus-hook/event';
import { inboxAddress, writeInboxAddress } from '../nexus-hook/inbox-address';

/** The path the agent's HTTP hooks (and the hook command) post to; "nexus-hook" marks them as ours. */
export const RELAY_PATH = '/nexus-hook';
/** The header that names Nexus's session (the CLI fills it from NEXUS_SESSION_ID in its environment). */
export const SESSION_HEADER = 'x-nexus-session';
/** GET: how many hook events this relay process has published, `{ pid, sent }` (the soak counts against it). */
export const COUNTS_PATH = '/counts';
/**
 * SessionStart from the shell hook (nexus-hook.sh): the agent's inbox socket and token, which only
 * the hook's environment has. The relay writes them to the session's inbox.json before it publishes
 * the event, and says so in its answer (INBOX_WRITTEN_HEADER: `written`).
 */
export const INBOX_SOCKET_HEADER = 'x-nexus-inbox-socket';
export const INBOX_TOKEN_HEADER = 'x-nexus-inbox-token';
export const INBOX_WRITTEN_HEADER = 'x-nexus-inbox';

export interface RelayDeps {
  workspaceId: string;
  /** Publishes in call order; never throws (a connection that is down buffers). */
  publish(subject: string, payload: string): void;
  /** One permission question to core, asked again in slices while it waits (main.ts); null when nobody answers in time. */
  request(subject: string, payload: string, timeoutMs: number): Promise<string | null>;
  permissionWaitMs: number;
  /** Where sessions' inbox.json files go (/tmp/nexus-sessions); absent: the relay writes none. */
  stateDir?: string | undefined;
}

const LIMIT = 4 * 1024 * 1024;
const PRINTABLE = /^[\x20-\x7e]*$/;

function readBody(req: IncomingMessage): Promise<string | null> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size <= LIMIT) chunks.push(c);
    });
    req.on('end', () => resolve(size <= LIMIT ? Buffer.concat(chunks).toString('utf8') : null));
    req.on('error', () => resolve(null));
  });
}

/**
 * The relay's HTTP side, on 127.0.0.1 inside the workspace container: each POST is one hook event
 * (the agent's JSON), published on nexus.hooks.<workspaceId> in arrival order, stamped on arrival.
 * A PermissionRequest also asks core and answers with the decision (or nothing: the dialog stays).
 * Every other event is answered at once with an empty body, which the agent adds to nothing.
 * Each event carries `relayPid` and `seq`, this process's count of events published so far (1, 2, …), so a
 * receiver can tell a gap, and `relayRun` (random per process: a pid comes again after a container
 * restart), so core knows a copy sent again; GET /counts says how many went out.
 */
export function createRelayServer(deps: RelayDeps): Server {
  const hooks = `nexus.hooks.${deps.workspaceId}`;
  const permissions = `nexus.permissions.${deps.workspaceId}`;
  let sent = 0;
  const relayRun = randomBytes(6).toString('hex');
  return createServer((req, res) => {
    if (req.method === 'GET' && req.url === COUNTS_PATH) {
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ pid: process.pid, sent }));
      return;
    }
    if (req.method !== 'POST' || req.url !== RELAY_PATH) {
      res.writeHead(req.url === '/health' ? 200 : 404).end();
      return;
    }
    void readBody(req).then(async (body) => {
      const sessionId = req.headers[SESSION_HEADER];
      let input: Record<string, unknown> | null = null;
      try {
        const parsed = body === null ? null : (JSON.parse(body) as unknown);
        if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) input = parsed as Record<string, unknown>;
      } catch {
        input = null;
      }
      // Not a Nexus session (no id in the agent's environment) or not a hook event: nothing to tell.
      if (typeof sessionId !== 'string' || !ID.test(sessionId) || !input || typeof input.hook_event_name !== 'string') {
        res.writeHead(204).end();
        return;
      }
      const headers: Record<string, string> = { 'content-type': 'application/json' };
      // Before the event goes out: whoever hears SessionStart may send a message at once.
      if (input.hook_event_name === 'SessionStart' && deps.stateDir && writeInbox(deps.stateDir, sessionId, req, input))
        headers[INBOX_WRITTEN_HEADER] = 'written';
      const message = JSON.parse(hookMessage(sessionId, deps.workspaceId, input)) as Record<string, unknown>;
      deps.publish(hooks, JSON.stringify({ ...message, relayPid: process.pid, relayRun, seq: ++sent }));
      let out = '';
      if (input.hook_event_name === 'PermissionRequest') {
        const ask = permissionAsk(sessionId, deps.workspaceId, input, randomBytes(8).toString('hex'));
        out = decisionOutput(await deps.request(permissions, ask, deps.permissionWaitMs + 2000));
      }
      res.writeHead(200, headers).end(out);
    });
  });
}

/** The session's inbox.json from the SessionStart post's headers; whether it was written. */
function writeInbox(
  stateDir: string,
  sessionId: string,
  req: IncomingMessage,
  input: Record<string, unknown>,
): boolean {
  const socket = req.headers[INBOX_SOCKET_HEADER];
  const token = req.headers[INBOX_TOKEN_HEADER];
  // Headers arrive as latin1: only printable ASCII comes through as the hook sent it (it sends no other).
  if (![socket, token].every((v) => typeof v === 'string' && PRINTABLE.test(v))) return false;
  const address = inboxAddress(socket, token, input.session_id);
  if (!address) return false;
  try {
    writeInboxAddress(stateDir, sessionId, address);
    return true;
  } catch {
    // Not written: the hook falls back to writing it itself.
    return false;
  }
}
