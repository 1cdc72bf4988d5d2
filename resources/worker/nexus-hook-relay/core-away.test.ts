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
 * Core SIGKILLed under running sessions (found by `npm run soak`): its nats-server lives on and the
 * relay stays connected to it, but nobody listens on the hooks subject. What the agents raise in
 * that gap must reach the core that comes back, in order, and a permission question asked in it must
 * be put to that core, not dropped. A real nats-server and the relay's own entry point, on the host.
 */
const WS = 'w-away';
const SESSION = 'sess-away';

describe('the hook relay while core is away (real nats-server)', () => {
  const dir = tempDir('nexus-relay-away-');
  let nats: TestNats;
  let relay: RelayProcess;
  let core: NatsConnection | null = null;
  const heard: HeardHook[] = [];

  /** "Core": one connection subscribed to the workspace's hooks, answering each (and its permission questions). */
  const startCore = async (answer?: string): Promise<void> => {
    core = await connect({ servers: nats.url, user: nats.admin.user, pass: nats.admin.pass });
    answerHookEvents(core, WS, heard);
    const asks = core.subscribe(`nexus.permissions.${WS}`);
    void (async () => {
      for await (const m of asks) if (answer) m.respond(answer);
    })();
    await core.flush();
  };
  /** As a SIGKILL does: the connection goes, nothing is drained. */
  const killCore = async (): Promise<void> => {
    await core?.close();
    core = null;
  };
  const post = (event: Record<string, unknown>) => relay.post(SESSION, event);

  beforeAll(async () => {
    nats = await startNats(dir.path, [WS]);
    await startCore();
    relay = await startRelayProcess(dir.path, WS, {
      url: nats.url,
      ...nats.admin,
      permissionWaitMs: 20_000,
      askSliceMs: 1500,
    });
  }, 60_000);
  afterAll(async () => {
    relay?.kill();
    await core?.close();
    await nats?.stop();
    dir.remove();
  });

  it('delivers, in order, the events raised while no core listened, once a core listens again', async () => {
    await post({ hook_event_name: 'UserPromptSubmit' });
    await waitFor(() => heard.length === 1, 'the first event');
    await killCore();
    for (const name of ['PreToolUse', 'PostToolUse', 'Stop']) await post({ hook_event_name: name });
    await new Promise((r) => setTimeout(r, 1000));
    await startCore();
    await waitFor(() => heard.length >= 4, 'the events raised while core was away', 20_000);
    expect(heard.map((h) => h.event?.hook_event_name)).toEqual([
      'UserPromptSubmit',
      'PreToolUse',
      'PostToolUse',
      'Stop',
    ]);
    expect(heard.map((h) => h.seq)).toEqual([1, 2, 3, 4]);
  }, 60_000);

  it('puts a permission question asked while no core listened to the core that comes back', async () => {
    await killCore();
    const answered = post({ hook_event_name: 'PermissionRequest', tool_name: 'Bash', tool_input: { command: 'ls' } });
    await new Promise((r) => setTimeout(r, 1000));
    await startCore(JSON.stringify({ behavior: 'allow' }));
    const out = await answered;
    expect(JSON.parse(out || '{}')).toEqual({
      hookSpecificOutput: { hookEventName: 'PermissionRequest', decision: { behavior: 'allow' } },
    });
  }, 60_000);

  it('puts a question the killed core held to the core started after it, and that core’s answer reaches the agent', async () => {
    await killCore();
    const asks: string[] = [];
    // This core holds the question (no answer), as core does while the operator has not decided, and then dies.
    core = await connect({ servers: nats.url, user: nats.admin.user, pass: nats.admin.pass });
    answerHookEvents(core, WS, heard);
    const held = core.subscribe(`nexus.permissions.${WS}`);
    void (async () => {
      for await (const m of held) asks.push(m.string());
    })();
    await core.flush();
    const answered = post({ hook_event_name: 'PermissionRequest', tool_name: 'Bash', tool_input: { command: 'rm x' } });
    await waitFor(() => asks.length === 1, 'the question at the first core');
    await killCore();
    await startCore(JSON.stringify({ behavior: 'deny', message: 'not now' }));
    const out = await answered;
    expect(JSON.parse(out || '{}')).toEqual({
      hookSpecificOutput: { hookEventName: 'PermissionRequest', decision: { behavior: 'deny', message: 'not now' } },
    });
    expect((JSON.parse(asks[0]!) as { askId?: string }).askId).toMatch(/^[a-f0-9]{16}$/);
  }, 60_000);
});
