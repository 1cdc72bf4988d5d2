import { mkdirSync, writeFileSync } from 'node:fs';
import { createConnection, createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hookGrant } from '../../../main/core/platform/permissions';
import { relayMessage } from '../../../main/core/platform/message-relay';
import { inboxAddressFile, type DeliveryStatus } from '../../../main/core/sessions/inbox/inbox-protocol';
import { startRelayProcess } from '../../../test/helpers/hook-relay-process';
import { startNats, type TestNats } from '../../../test/helpers/nats-server';
import { tempDir } from '../../../test/helpers/temp-dir';

/**
 * send_message without a process in the container (found by `npm run soak`: at load 50 each `docker exec` of the
 * inbox helper took 4–15 s and a third timed out). Core hands the message to the workspace's resident hook relay
 * over NATS; the relay delivers it into the session's inbox socket and answers the agent's receipt. A real
 * nats-server with the platform's own hook-relay grant, the relay's own entry point, and an inbox socket that
 * answers like the CLI's (docs/sessions.md, "Messages").
 */
const WS = 'w-msg';
const dir = tempDir('nexus-relay-msg-');
const stateDir = join(dir.path, 'state');
let nats: TestNats;
let core: NatsConnection;
let inbox: Server;
/** What the stand-in inbox answers next: a status, or nothing. */
let answer: DeliveryStatus | null = null;
const received: string[] = [];

const request = (sessionId: string, text: string, timeoutMs = 8000) =>
  relayMessage(core, WS, JSON.stringify({ sessionId, text, timeoutMs: 4000, statusWaitMs: 800 }), timeoutMs);

beforeAll(async () => {
  nats = await startNats(dir.path, [WS], (w) => hookGrant(w).permissions);
  const socket = join(dir.path, 'inbox.sock');
  inbox = createServer((c) => {
    let buf = '';
    c.setEncoding('utf8');
    c.on('data', (d: string) => (buf += d));
    c.on('end', () => {
      const [auth, user] = buf.split('\n').map((l) => JSON.parse(l || '{}') as Record<string, unknown>);
      if ((auth as { token?: string }).token !== 't'.repeat(32)) return;
      const frame = user as { from?: string; msg_id?: string; message?: { content?: string } };
      received.push(frame.message?.content ?? '');
      if (!answer || !frame.from) return;
      const reply = createConnection(frame.from.replace(/^uds:/, ''));
      reply.on('error', () => undefined);
      reply.end(
        `${JSON.stringify({ type: 'control', action: 'peer_message_status', status: answer, msg_id: frame.msg_id })}\n`,
      );
    });
  });
  await new Promise<void>((r) => inbox.listen(socket, r));
  mkdirSync(join(stateDir, 's1'), { recursive: true, mode: 0o700 });
  writeFileSync(inboxAddressFile(stateDir, 's1'), JSON.stringify({ socket, token: 't'.repeat(32) }));
  core = await connect({ servers: nats.url, user: nats.admin.user, pass: nats.admin.pass });
  const hook = nats.hookUser(WS);
  await startRelayProcess(dir.path, WS, { url: nats.url, user: hook.user, pass: hook.pass, stateDir });
  // The relay subscribes right after it connects; the first request may come a moment early.
  for (let i = 0; i < 100 && (await request('none', 'probe', 500).catch(() => null)) === null; i++)
    await new Promise((r) => setTimeout(r, 100));
}, 60_000);

afterAll(async () => {
  await core?.close();
  inbox?.close();
  await nats?.stop();
  dir.remove();
});

describe('messages through the hook relay (real nats-server)', () => {
  it('puts the text into the session’s inbox exactly and answers what the agent said of it', async () => {
    const text = 'line one\nline "two" $(not run) `nor this` ünïcødé \u202e end';
    answer = 'held';
    expect(JSON.parse((await request('s1', text))!)).toEqual({ outcome: 'held' });
    expect(received.at(-1)).toBe(text);
    answer = null;
    expect(JSON.parse((await request('s1', 'no receipt'))!)).toMatchObject({ outcome: 'sent' });
    expect(received.at(-1)).toBe('no receipt');
  });

  it('says the inbox is missing for a session that never announced one', async () => {
    expect(JSON.parse((await request('s-unknown', 'hello'))!)).toMatchObject({ outcome: 'socket_missing' });
  });

  it('answers bad_input to a message it cannot read, and delivers nothing', async () => {
    const before = received.length;
    const r = await relayMessage(core, WS, JSON.stringify({ sessionId: '../s1', text: 'x' }), 5000);
    expect(JSON.parse(r!)).toMatchObject({ outcome: 'bad_input' });
    expect(received.length).toBe(before);
  });

  it('is null for a workspace whose relay does not listen, so core takes the helper’s path', async () => {
    expect(await relayMessage(core, 'w-other', JSON.stringify({ sessionId: 's1', text: 'x' }), 3000)).toBeNull();
  });

  it('takes messages only from core: the relay’s own user may not publish one, nor answer outside its prefix', async () => {
    const hook = nats.hookUser(WS);
    const errors: string[] = [];
    const asRelay = await connect({ servers: nats.url, user: hook.user, pass: hook.pass });
    void (async () => {
      for await (const s of asRelay.status()) if (s.type === 'error') errors.push(String(s.error));
    })();
    const before = received.length;
    asRelay.publish(
      `nexus.messages.${WS}`,
      JSON.stringify({ sessionId: 's1', text: 'forged', timeoutMs: 1000, statusWaitMs: 0 }),
    );
    await asRelay.flush().catch(() => undefined);
    await new Promise((r) => setTimeout(r, 500));
    expect(errors.join(' ')).toMatch(/Permissions Violation for Publish to "nexus\.messages\.w-msg"/);
    expect(received.length).toBe(before);
    await asRelay.close();
    // A request whose reply subject is not under the workspace's message-replies prefix gets no answer.
    const stray = core.request(
      `nexus.messages.${WS}`,
      JSON.stringify({ sessionId: 's1', text: 'stray', timeoutMs: 1000, statusWaitMs: 0 }),
      { timeout: 1500 },
    );
    await expect(stray).rejects.toThrow();
    expect(received.length).toBe(before);
  });
});
