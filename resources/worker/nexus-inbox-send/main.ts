/**
 * Worker-side helper core runs through `docker exec -i` to deliver one message to a session's inbox when the
 * workspace's hook relay does not take it over NATS (no relay yet, or one from before relays delivered):
 *   node nexus-inbox-send.cjs <stateDir> <sessionId>   (the message text on stdin, UTF-8)
 * It prints exactly one JSON line: a HelperReport (see inbox-protocol.ts). The delivery is deliver.ts.
 */
import { deliverToInbox } from './deliver';

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of process.stdin) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

async function main(): Promise<void> {
  const [stateDir, sessionId] = process.argv.slice(2);
  const report =
    !stateDir || !sessionId
      ? { outcome: 'bad_input' as const, detail: 'usage: nexus-inbox-send <stateDir> <sessionId> < text' }
      : await deliverToInbox(stateDir, sessionId, await readStdin(), {
          timeoutMs: Number(process.env.NEXUS_INBOX_TIMEOUT_MS ?? 8000),
          statusWaitMs: Number(process.env.NEXUS_INBOX_STATUS_WAIT_MS ?? 2000),
        });
  process.stdout.write(`${JSON.stringify(report)}\n`);
  process.exit(0);
}

void main();
