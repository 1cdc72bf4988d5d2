import { execFile } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { createConnection, createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../../../../test/helpers/temp-dir';
import { bundleWorkerScripts, type WorkerScripts } from '../../../../test/helpers/worker-scripts';
import {
  DeliveryStatuses,
  inboxAddressFile,
  type DeliveryStatus,
  type HelperReport,
} from '../../../../shared/inbox-protocol';
import { deliveryOf } from './message-delivery';

/**
 * sessions.sendMessage's result is what the agent said about the message, never a guess: the real
 * worker helper (nexus-inbox-send) against an inbox socket that answers like the CLI's
 * (peer_message_status on the sender's reply socket), or says nothing. The real CLI's `held` is
 * pinned in agent/real-agent-bypass.docker.test.ts.
 */
const dir = tempDir('nexus-delivery-');
const stateDir = join(dir.path, 'state');
let scripts: WorkerScripts;
let server: Server;
/** What the stand-in inbox answers next: a status, or nothing at all. */
let answer: DeliveryStatus | null = null;
const received: string[] = [];

beforeAll(async () => {
  scripts = await bundleWorkerScripts(join(dir.path, 'bin'));
  const socket = join(dir.path, 'inbox.sock');
  server = createServer((c) => {
    let buf = '';
    c.setEncoding('utf8');
    c.on('data', (d: string) => (buf += d));
    c.on('end', () => {
      const frame = JSON.parse(buf.split('\n')[1] ?? '{}') as { from?: string; msg_id?: string; message?: object };
      received.push(JSON.stringify(frame.message));
      const status = answer;
      if (!status || !frame.from) return;
      const reply = createConnection(frame.from.replace(/^uds:/, ''));
      reply.on('error', () => undefined);
      reply.end(
        `${JSON.stringify({ type: 'control', action: 'peer_message_status', status, msg_id: frame.msg_id })}\n`,
      );
    });
  });
  await new Promise<void>((r) => server.listen(socket, r));
  for (const id of ['s1', 'gone']) mkdirSync(join(stateDir, id), { recursive: true, mode: 0o700 });
  writeFileSync(inboxAddressFile(stateDir, 's1'), JSON.stringify({ socket, token: 'a'.repeat(32) }));
  writeFileSync(inboxAddressFile(stateDir, 'gone'), JSON.stringify({ socket: `${socket}.none`, token: 'x' }));
});
afterAll(() => {
  server?.close();
  dir.remove();
});

/** Runs the helper as core does (text on stdin), without blocking this process's stand-in inbox. */
function send(sessionId: string, text: string): Promise<HelperReport> {
  return new Promise((resolve, reject) => {
    const child = execFile(
      'node',
      [scripts.inboxSend, stateDir, sessionId],
      { encoding: 'utf8', env: { ...process.env, NEXUS_INBOX_STATUS_WAIT_MS: '1500' } },
      (err, stdout) => (err ? reject(err) : resolve(JSON.parse(stdout) as HelperReport)),
    );
    child.stdin?.end(text);
  });
}

describe('send_message results', () => {
  it.each(DeliveryStatuses.map((s) => [s]))('reports %s when the agent answers %s', async (status) => {
    answer = status;
    const result = deliveryOf(await send('s1', `message for ${status}`), 'one');
    expect(result.status).toBe(status);
    expect(result.note.length).toBeGreaterThan(10);
    expect(received.at(-1)).toBe(JSON.stringify({ role: 'user', content: `message for ${status}` }));
  });

  it('reports sent_unconfirmed, never delivered, when the message was written but the agent said nothing', async () => {
    answer = null;
    const result = deliveryOf(await send('s1', 'no word back'), 'one');
    expect(result).toMatchObject({ status: 'sent_unconfirmed' });
    expect(result.note).toMatch(/unconfirmed/);
    expect(received.at(-1)).toContain('no word back');
  });

  it('is a typed error when the message never reached an inbox', async () => {
    const gone = await send('gone', 'anyone?');
    expect(() => deliveryOf(gone, 'two')).toThrow(
      expect.objectContaining({ code: 'unavailable', message: expect.stringMatching(/inbox socket of session two/) }),
    );
    const nobody = await send('nobody', 'anyone?');
    expect(() => deliveryOf(nobody, 'three')).toThrow(expect.objectContaining({ code: 'unavailable' }));
    const empty = await send('s1', '');
    expect(() => deliveryOf(empty, 'one')).toThrow(expect.objectContaining({ code: 'bad_request' }));
  });
});
