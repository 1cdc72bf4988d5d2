import { mkdirSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { createConnection, createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hookGrant } from '../../../main/core/platform/permissions';
import { relayMessage } from '../../../main/core/platform/message-relay';
import { inboxAddressFile, type DeliveryStatus } from '../../../shared/inbox-protocol';
import { startRelayProcess, type RelayProcess } from '../../../test/helpers/hook-relay-process';
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
let relay: RelayProcess | undefined;
/** What the stand-in inbox answers next: a status, or nothing. */
let answer: DeliveryStatus | null = null;
const received: string[] = [];

const message = (sessionId: string, text: string, statusWaitMs = 800) =>
  JSON.stringify({ deliveryId: randomBytes(12).toString('hex'), sessionId, text, timeoutMs: 4000, statusWaitMs });
const request = (sessionId: string, text: string, timeoutMs = 8000, statusWaitMs?: number) =>
  relayMessage(core, WS, message(sessionId, text, statusWaitMs), timeoutMs);
/** How long the stand-in agent takes to read a message and send its receipt (busy under load). */
let inboxDelayMs = 0;

beforeAll(async () => {
  nats = await startNats(dir.path, [WS], (w) => hookGrant(w).permissions);
  const socket = join(dir.path, 'inbox.sock');
  inbox = createServer((c) => {
    let buf = '';
    c.setEncoding('utf8');
    c.on('data', (d: string) => (buf += d));
    c.on('end', () => void setTimeout(() => take(buf), inboxDelayMs));
  });
  const take = (buf: string): void => {
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
  };
  await new Promise<void>((r) => inbox.listen(socket, r));
  mkdirSync(join(stateDir, 's1'), { recursive: true, mode: 0o700 });
  writeFileSync(inboxAddressFile(stateDir, 's1'), JSON.stringify({ socket, token: 't'.repeat(32) }));
  core = await connect({ servers: nats.url, user: nats.admin.user, pass: nats.admin.pass });
  const hook = nats.hookUser(WS);
  relay = await startRelayProcess(dir.path, WS, { url: nats.url, user: hook.user, pass: hook.pass, stateDir });
  // The relay subscribes right after it connects; the first request may come a moment early.
  for (let i = 0; i < 100 && (await request('none', 'probe', 500).catch(() => null)) === null; i++)
    await new Promise((r) => setTimeout(r, 100));
}, 60_000);

const replyTo = () => `nexus.message-replies.${WS}.${randomBytes(6).toString('hex')}`;

afterAll(async () => {
  // The relay would otherwise go on after the file, retrying a NATS server that is gone.
  relay?.kill();
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
    expect(await relayMessage(core, 'w-other', message('s1', 'x'), 3000)).toBeNull();
  });

  it('takes messages only from core: the relay’s own user may not publish one, nor answer outside its prefix', async () => {
    const hook = nats.hookUser(WS);
    const errors: string[] = [];
    const asRelay = await connect({ servers: nats.url, user: hook.user, pass: hook.pass });
    void (async () => {
      for await (const s of asRelay.status()) if (s.type === 'error') errors.push(String(s.error));
    })();
    const before = received.length;
    asRelay.publish(`nexus.messages.${WS}`, message('s1', 'forged'));
    await asRelay.flush().catch(() => undefined);
    await new Promise((r) => setTimeout(r, 500));
    expect(errors.join(' ')).toMatch(/Permissions Violation for Publish to "nexus\.messages\.w-msg"/);
    expect(received.length).toBe(before);
    await asRelay.close();
    // A request whose reply subject is not under the workspace's message-replies prefix gets no answer.
    const stray = core.request(`nexus.messages.${WS}`, message('s1', 'stray'), { timeout: 1500 });
    await expect(stray).rejects.toThrow();
    expect(received.length).toBe(before);
  });

  it('delivers a repeat of one delivery id once and answers every ask of it with the same report', async () => {
    const before = received.length;
    answer = 'held';
    const payload = message('s1', 'asked twice');
    const ask = () => core.request(`nexus.messages.${WS}`, payload, { timeout: 8000, noMux: true, reply: replyTo() });
    const [first, second] = await Promise.all([ask(), ask()]);
    const third = await ask();
    expect([first, second, third].map((m) => JSON.parse(m.string()))).toEqual([
      { outcome: 'held' },
      { outcome: 'held' },
      { outcome: 'held' },
    ]);
    expect(received.slice(before)).toEqual(['asked twice']);
    answer = null;
  });

  it('asks again when an answer is slow past one ask, and the agent still gets the message once', async () => {
    const before = received.length;
    answer = 'delivered';
    inboxDelayMs = 4500;
    try {
      expect(JSON.parse((await request('s1', 'slow agent', 12_000, 8000))!)).toEqual({ outcome: 'delivered' });
    } finally {
      inboxDelayMs = 0;
      answer = null;
    }
    expect(received.slice(before)).toEqual(['slow agent']);
  });
});

describe('core asks a relay again when an answer is lost (NATS Core is at most once)', () => {
  it('gets the answer of a later ask of the same payload, and is a timeout when none comes', async () => {
    const ws = 'w-lossy';
    const asks: string[] = [];
    const lossy = core.subscribe(`nexus.messages.${ws}`, {
      callback: (_e, m) => {
        asks.push(m.string());
        // The first ask's answer is lost on the way back (a link cut under it).
        if (asks.length > 1) m.respond(JSON.stringify({ outcome: 'held' }));
      },
    });
    await core.flush();
    const payload = message('s1', 'over a lossy link');
    expect(JSON.parse((await relayMessage(core, ws, payload, 10_000))!)).toEqual({ outcome: 'held' });
    expect(asks).toEqual([payload, payload]);
    lossy.unsubscribe();

    const silent = core.subscribe(`nexus.messages.${ws}-silent`, { callback: () => undefined });
    await core.flush();
    await expect(relayMessage(core, `${ws}-silent`, payload, 4000)).rejects.toMatchObject({ code: 'timeout' });
    silent.unsubscribe();
  });
});
