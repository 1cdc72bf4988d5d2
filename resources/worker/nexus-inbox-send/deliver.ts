/**
 * One message into one session's inbox (the protocol in main/core/sessions/inbox/inbox-protocol.ts), as a
 * typed report. Shared by the one-shot helper core runs through `docker exec` (main.ts) and the resident hook
 * relay, which delivers the messages core sends it over NATS without a process per message (messages.ts there).
 * It has the whole text before it connects (the CLI drops idle connections), sends the auth line then the user
 * frame, closes, and waits briefly for the delivery status on its own reply socket.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { createConnection, createServer, type Server } from 'node:net';
import { dirname, join } from 'node:path';
import {
  encodeAuthFrame,
  encodeUserFrame,
  inboxAddressFile,
  InboxFrameError,
  parseStatusFrame,
  type DeliveryStatus,
  type HelperReport,
  type InboxAddress,
} from '../../../shared/inbox-protocol';

export interface DeliverOptions {
  /** The connection must close cleanly within this. */
  timeoutMs: number;
  /** How long to wait for a receipt after the close (the agent sends one only for what it does not admit). */
  statusWaitMs: number;
}

function readAddress(stateDir: string, sessionId: string): InboxAddress | HelperReport {
  const file = inboxAddressFile(stateDir, sessionId);
  if (!existsSync(file))
    return {
      outcome: 'socket_missing',
      detail: 'the agent has not announced its inbox yet (no SessionStart hook seen)',
    };
  let addr: InboxAddress;
  try {
    addr = JSON.parse(readFileSync(file, 'utf8')) as InboxAddress;
  } catch {
    return { outcome: 'socket_missing', detail: 'the inbox address file is unreadable' };
  }
  let isSocket = false;
  try {
    isSocket = statSync(addr.socket).isSocket();
  } catch {
    isSocket = false;
  }
  if (!isSocket)
    return { outcome: 'socket_missing', detail: `no inbox socket at ${addr.socket}: the agent is not running` };
  return addr;
}

/**
 * The reply socket sits beside the agent's own socket, named like one of its peers' (`<hex>.sock`):
 * the CLI sends delivery receipts only to a reply address in its socket directory (measured on
 * 2.1.332: any other address is skipped, "reply address … outside our socket namespace"). The
 * directory is the agent user's, 0700; this runs as that user.
 */
function listenForStatus(
  agentSocket: string,
  msgId: string,
): Promise<{ server: Server; path: string; status: Promise<DeliveryStatus> }> {
  let dir = dirname(agentSocket);
  try {
    if (!statSync(dir).isDirectory()) throw new Error('not a directory');
  } catch {
    dir = `/tmp/nexus-inbox-replies-${process.getuid?.() ?? 0}`;
    mkdirSync(dir, { recursive: true, mode: 0o700 });
  }
  const path = join(dir, `${randomBytes(8).toString('hex')}.sock`);
  let resolveStatus: (s: DeliveryStatus) => void = () => undefined;
  const status = new Promise<DeliveryStatus>((r) => (resolveStatus = r));
  const server = createServer((sock) => {
    let buf = '';
    sock.setEncoding('utf8');
    sock.on('error', () => undefined);
    sock.on('data', (d: string) => {
      buf += d;
      for (const line of buf.split('\n')) {
        const s = parseStatusFrame(line);
        if (s && (s.msgId === null || s.msgId === msgId)) resolveStatus(s.status);
      }
    });
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(path, () => resolve({ server, path, status }));
  });
}

function send(socket: string, payload: string, timeoutMs: number): Promise<'ok' | 'missing' | 'reset' | 'timeout'> {
  return new Promise((resolve) => {
    const c = createConnection(socket);
    let done = false;
    const finish = (r: 'ok' | 'missing' | 'reset' | 'timeout'): void => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      if (r === 'timeout') c.destroy();
      resolve(r);
    };
    const timer = setTimeout(() => finish('timeout'), timeoutMs);
    c.on('connect', () => c.end(payload));
    c.on('error', (e: NodeJS.ErrnoException) =>
      finish(e.code === 'ENOENT' || e.code === 'ECONNREFUSED' ? 'missing' : 'reset'),
    );
    c.on('close', () => finish('ok'));
  });
}

/** Delivers `text` to the inbox `sessionId` announced under `stateDir`; never throws. */
export async function deliverToInbox(
  stateDir: string,
  sessionId: string,
  text: string,
  opts: DeliverOptions,
): Promise<HelperReport> {
  const addr = readAddress(stateDir, sessionId);
  if ('outcome' in addr) return addr;
  const msgId = randomUUID();
  const frame = (replyTo?: string): string =>
    encodeAuthFrame(addr.token) +
    encodeUserFrame({
      content: text,
      msgId,
      ...(replyTo !== undefined ? { replyTo } : {}),
      ...(addr.agentSessionId ? { sessionId: addr.agentSessionId } : {}),
    });
  const badInput = (e: unknown): HelperReport => ({
    outcome: 'bad_input',
    detail: e instanceof InboxFrameError ? e.message : String(e),
  });
  // Judged before any socket is made: an empty or oversized message changes nothing.
  try {
    frame();
  } catch (e) {
    return badInput(e);
  }
  const reply = await listenForStatus(addr.socket, msgId);
  try {
    let payload: string;
    try {
      payload = frame(reply.path);
    } catch (e) {
      return badInput(e);
    }
    const sent = await send(addr.socket, payload, opts.timeoutMs);
    if (sent === 'timeout') return { outcome: 'timeout', detail: `no clean close within ${opts.timeoutMs} ms` };
    if (sent === 'missing') return { outcome: 'socket_missing', detail: `nothing listens on ${addr.socket}` };
    if (sent === 'reset')
      return { outcome: 'auth_refused', detail: 'the agent closed the connection before taking the message' };
    const status = await Promise.race([
      reply.status,
      new Promise<null>((r) => setTimeout(() => r(null), opts.statusWaitMs)),
    ]);
    return status
      ? { outcome: status }
      : { outcome: 'sent', detail: 'written and closed; the agent sent no delivery status' };
  } finally {
    reply.server.close();
    rmSync(reply.path, { force: true });
  }
}
