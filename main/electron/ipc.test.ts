import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { opNames } from '../../shared/contract';
import { EVENT_CHANNEL, opChannel } from '../../shared/ipc';
import { testCore } from '../../test/helpers/core';
import type { Core } from '../core';

vi.mock('electron', () => import('../../test/fakes/electron'));
const fake = await import('../../test/fakes/electron');
const { registerIpc } = await import('./ipc');

const topFrame = (url: string) => ({ senderFrame: { url, parent: null } });

describe('IPC bridge', () => {
  let core: Core;
  let cleanup: () => Promise<void>;
  const contents = new fake.FakeWebContents();
  let registration: { dispose(): void | Promise<void> };
  beforeAll(async () => {
    ({ core, cleanup } = await testCore());
    registration = registerIpc(core, () => contents as never);
  });
  afterAll(async () => {
    await registration.dispose();
    await cleanup();
  });
  const call = (op: string, event: unknown, input: unknown) => fake.ipcHandlers.get(opChannel(op))!(event, input);

  it('registers one fixed channel per operation', () => {
    for (const op of opNames) expect(fake.ipcHandlers.has(opChannel(op))).toBe(true);
  });

  it('answers the app frame with the result', async () => {
    const reply = (await call('app.info', topFrame('app://nexus/'), {})) as { result: { version: string } };
    expect(reply.result.version).toBe('test');
  });

  it('refuses a sender that is not the app top frame', async () => {
    expect(await call('app.info', topFrame('https://evil.example/'), {})).toEqual({
      error: { code: 'forbidden', message: 'Untrusted sender.' },
    });
    expect(await call('app.info', { senderFrame: { url: 'app://nexus/', parent: {} } }, {})).toMatchObject({
      error: { code: 'forbidden' },
    });
    expect(await call('app.info', { senderFrame: null }, {})).toMatchObject({ error: { code: 'forbidden' } });
  });

  it('parses input with the contract schema and returns a typed error', async () => {
    expect(await call('app.info', topFrame('app://nexus/'), { evil: true })).toMatchObject({
      error: { code: 'bad_request' },
    });
  });

  it('forwards core events to the window', () => {
    core.status.set('nats', { state: 'unavailable', reason: 'ipc test' });
    expect(contents.sent.at(-1)).toMatchObject({ channel: EVENT_CHANNEL, args: [{ name: 'app.status' }] });
  });
});
