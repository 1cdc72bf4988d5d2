import { connect as tcpConnect, createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startNats, type TestNats } from '../../../test/helpers/nats-server';
import { tempDir } from '../../../test/helpers/temp-dir';
import { waitFor } from '../../../test/helpers/wait';
import {
  answerHookEvents,
  startRelayProcess,
  type HeardHook,
  type RelayProcess,
} from '../../../test/helpers/hook-relay-process';

/**
 * A workspace container's network cut for 30 s (found by `npm run soak`): `docker network connect`
 * gives it another address, and the relay's NATS connection, opened on the old one, stays open and
 * dead: what it writes goes nowhere and nothing says so. Stood in for here by a TCP proxy between the
 * relay and a real nats-server that stops carrying the connections it has (new ones go through,
 * as they do from the new address). Every event raised meanwhile must reach core, once, in order.
 */
const WS = 'w-cut';
const SESSION = 'sess-cut';

/** Forwards to `target`; cut() makes every connection open now carry nothing more, either way. */
function proxy(target: number): { server: Server; port: () => number; cut: () => void } {
  const live: { dead: boolean; sockets: Socket[] }[] = [];
  const server = createServer((client) => {
    const pair = { dead: false, sockets: [client] };
    const upstream = tcpConnect(target, '127.0.0.1');
    pair.sockets.push(upstream);
    live.push(pair);
    client.on('data', (d) => void (pair.dead || upstream.write(d)));
    upstream.on('data', (d) => void (pair.dead || client.write(d)));
    const end = (): void => pair.sockets.forEach((s) => s.destroy());
    client.on('error', end).on('close', () => pair.dead || end());
    upstream.on('error', end).on('close', () => pair.dead || end());
  });
  return {
    server,
    port: () => (server.address() as AddressInfo).port,
    cut: () => live.forEach((p) => (p.dead = true)),
  };
}

describe('the hook relay whose connection went dead (real nats-server, a proxy that stops carrying)', () => {
  const dir = tempDir('nexus-relay-cut-');
  let nats: TestNats;
  let relay: RelayProcess;
  let core: NatsConnection;
  let link: ReturnType<typeof proxy>;
  const heard: HeardHook[] = [];

  const post = (event: Record<string, unknown>) => relay.post(SESSION, event);

  beforeAll(async () => {
    nats = await startNats(dir.path, [WS]);
    link = proxy(nats.port);
    await new Promise<void>((r) => link.server.listen(0, '127.0.0.1', () => r()));
    // "Core", as platform-service does: each hook event taken and answered.
    core = await connect({ servers: nats.url, user: nats.admin.user, pass: nats.admin.pass });
    answerHookEvents(core, WS, heard);
    await core.flush();
    relay = await startRelayProcess(dir.path, WS, { url: `nats://127.0.0.1:${link.port()}`, ...nats.admin });
  }, 60_000);
  afterAll(async () => {
    relay?.kill();
    link?.server.close();
    await core?.close();
    await nats?.stop();
    dir.remove();
  });

  it('delivers every event written into the dead connection once it has connected again, once each, in order', async () => {
    await post({ hook_event_name: 'UserPromptSubmit' });
    await waitFor(() => heard.length === 1, 'the first event');
    link.cut();
    for (const name of ['PreToolUse', 'PostToolUse', 'Stop']) await post({ hook_event_name: name });
    await waitFor(() => heard.length >= 4, 'the events written into the dead connection', 45_000);
    await post({ hook_event_name: 'UserPromptSubmit' });
    await waitFor(() => heard.length >= 5, 'an event after the reconnect', 10_000);
    await new Promise((r) => setTimeout(r, 6000));
    expect(heard.map((h) => h.event?.hook_event_name)).toEqual([
      'UserPromptSubmit',
      'PreToolUse',
      'PostToolUse',
      'Stop',
      'UserPromptSubmit',
    ]);
    expect(heard.map((h) => h.seq)).toEqual([1, 2, 3, 4, 5]);
  }, 90_000);
});
