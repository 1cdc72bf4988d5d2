import { describe, expect, it } from 'vitest';
import type { ContainerExec } from '../container-sh';
import { sendToInbox, type MessageRelay } from './inbox-send';
import { RELAY_MAX_BYTES } from '../../../../shared/relay-message';

/**
 * Which way a message goes (the relay's side is pinned in resources/worker/nexus-hook-relay/messages.test.ts): to
 * the workspace's hook relay over NATS when one listens, with no process started in the container; to the
 * one-shot helper's `docker exec` only when none does or the message is too big for NATS.
 */
const config = { toolsDir: '/tmp/nexus-tools', stateDir: '/tmp/nexus-sessions', sendTimeoutMs: 8000 };
const ws = { id: 'w1', name: 'one', containerId: 'c1' };
/** Never read here: no container in these tests lost its helper (inbox-helper.test.ts puts one back). */
const helperScript = '/nonexistent/nexus-inbox-send.cjs';

function runtime(): ContainerExec & { execs: string[][] } {
  const execs: string[][] = [];
  return {
    execs,
    exec: (_ws, cmd) => {
      execs.push(cmd);
      return Promise.resolve({ stdout: '{"outcome":"sent"}\n', stderr: '', exitCode: 0 });
    },
  } as ContainerExec & { execs: string[][] };
}

const relay = (answer: string | null): MessageRelay & { payloads: string[] } => {
  const payloads: string[] = [];
  return { payloads, relayMessage: (_w, p) => (payloads.push(p), Promise.resolve(answer)) };
};

describe('sending a message to a session', () => {
  it('goes through the workspace’s hook relay and starts nothing in the container when the relay listens', async () => {
    const rt = runtime();
    const r = relay('{"outcome":"held"}');
    expect(await sendToInbox(rt, config, ws, 's1', 'hi "there"\n', { relay: r, helperScript })).toEqual({
      outcome: 'held',
    });
    expect(rt.execs).toEqual([]);
    expect(JSON.parse(r.payloads[0]!)).toEqual({
      deliveryId: expect.stringMatching(/^[a-f0-9]{24}$/),
      sessionId: 's1',
      text: 'hi "there"\n',
      timeoutMs: 8000,
      statusWaitMs: 2000,
    });
  });

  it('runs the helper in the container when no relay listens', async () => {
    const rt = runtime();
    expect(await sendToInbox(rt, config, ws, 's1', 'hi', { relay: relay(null), helperScript })).toEqual({
      outcome: 'sent',
    });
    expect(rt.execs[0]).toContain('/tmp/nexus-tools/nexus-inbox-send.cjs');
  });

  it('runs the helper for a message too big for one NATS message', async () => {
    const rt = runtime();
    const r = relay('{"outcome":"sent"}');
    await sendToInbox(rt, config, ws, 's1', 'x'.repeat(RELAY_MAX_BYTES), { relay: r, helperScript });
    expect(r.payloads).toEqual([]);
    expect(rt.execs).toHaveLength(1);
  });

  it('refuses an answer from the relay that is not a report, and does not send again', async () => {
    const rt = runtime();
    await expect(
      sendToInbox(rt, config, ws, 's1', 'hi', { relay: relay('{"outcome":"maybe"}'), helperScript }),
    ).rejects.toMatchObject({
      code: 'internal',
    });
    expect(rt.execs).toEqual([]);
  });
});
