/**
 * Worker-side helper core runs through `docker exec -i` to deliver one message to a session's inbox:
 *   node nexus-inbox-send.cjs <stateDir> <sessionId>   (the message text on stdin, UTF-8)
 * It reads the whole payload first and only then connects (the CLI drops idle connections), sends
 * the auth line then the user frame, closes, and waits briefly for the delivery status on its own
 * reply socket. It prints exactly one JSON line: a HelperReport (see inbox-protocol.ts).
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
} from '../../../main/core/sessions/inbox/inbox-protocol';

const timeoutMs = Number(process.env.NEXUS_INBOX_TIMEOUT_MS ?? 8000);
const statusWaitMs = Number(process.env.NEXUS_INBOX_STATUS_WAIT_MS ?? 2000);

function report(r: HelperReport): never {
  process.stdout.write(`${JSON.stringify(r)}\n`);
  process.exit(0);
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of process.stdin) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

function readAddress(stateDir: string, sessionId: string): InboxAddress {
  const file = inboxAddressFile(stateDir, sessionId);
  if (!existsSync(file))
    report({
      outcome: 'socket_missing',
      detail: 'the agent has not announced its inbox yet (no SessionStart hook seen)',
    });
  const addr = JSON.parse(readFileSync(file, 'utf8')) as InboxAddress;
  let isSocket = false;
  try {
    isSocket = statSync(addr.socket).isSocket();
  } catch {
    isSocket = false;
  }
  if (!isSocket)
    report({ outcome: 'socket_missing', detail: `no inbox socket at ${addr.socket}: the agent is not running` });
  return addr;
}

/**
 * The reply socket sits beside the agent's own socket, named like one of its peers' (`<hex>.sock`):
 * the CLI sends delivery receipts only to a reply address in its socket directory (measured on
 * 2.1.332: any other address is skipped, "reply address … outside our socket namespace"). The
 * directory is the agent user's, 0700; this helper runs as that user.
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

function send(socket: string, payload: string): Promise<'ok' | 'missing' | 'reset'> {
  return new Promise((resolve) => {
    const c = createConnection(socket);
    let done = false;
    const finish = (r: 'ok' | 'missing' | 'reset'): void => {
      if (done) return;
      done = true;
      resolve(r);
    };
    c.on('connect', () => c.end(payload));
    c.on('error', (e: NodeJS.ErrnoException) =>
      finish(e.code === 'ENOENT' || e.code === 'ECONNREFUSED' ? 'missing' : 'reset'),
    );
    c.on('close', () => finish('ok'));
  });
}

async function main(): Promise<void> {
  const [stateDir, sessionId] = process.argv.slice(2);
  if (!stateDir || !sessionId)
    report({ outcome: 'bad_input', detail: 'usage: nexus-inbox-send <stateDir> <sessionId> < text' });
  const text = await readStdin();
  const addr = readAddress(stateDir, sessionId);
  const msgId = randomUUID();
  const reply = await listenForStatus(addr.socket, msgId);
  let payload: string;
  try {
    payload =
      encodeAuthFrame(addr.token) +
      encodeUserFrame({
        content: text,
        msgId,
        replyTo: reply.path,
        ...(addr.agentSessionId ? { sessionId: addr.agentSessionId } : {}),
      });
  } catch (e) {
    report({ outcome: 'bad_input', detail: e instanceof InboxFrameError ? e.message : String(e) });
  }
  const timer = setTimeout(
    () => report({ outcome: 'timeout', detail: `no clean close within ${timeoutMs} ms` }),
    timeoutMs,
  );
  const sent = await send(addr.socket, payload);
  if (sent === 'missing') report({ outcome: 'socket_missing', detail: `nothing listens on ${addr.socket}` });
  if (sent === 'reset')
    report({ outcome: 'auth_refused', detail: 'the agent closed the connection before taking the message' });
  clearTimeout(timer);
  const status = await Promise.race([reply.status, new Promise<null>((r) => setTimeout(() => r(null), statusWaitMs))]);
  reply.server.close();
  rmSync(reply.path, { force: true });
  report(
    status ? { outcome: status } : { outcome: 'sent', detail: 'written and closed; the agent sent no delivery status' },
  );
}

void main();
