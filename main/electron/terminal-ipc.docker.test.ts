import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { TERMINAL_IPC, type TerminalIpcEvent } from '../../shared/terminal';
import { sessionRig, type SessionRig } from '../../test/helpers/session-rig';
import { waitFor } from '../../test/helpers/wait';
import { rigTerminals } from '../../test/helpers/terminal-host';

vi.mock('electron', () => import('../../test/fakes/electron'));
const fake = await import('../../test/fakes/electron');
const { registerTerminalIpc } = await import('./terminal-ipc');

/** The window's webContents as the IPC handlers see it: what it was sent, and its end. */
class Sender {
  readonly events: TerminalIpcEvent[] = [];
  private onDestroyed: (() => void) | null = null;
  destroyed = false;
  send(_channel: string, e: TerminalIpcEvent): void {
    this.events.push(e);
  }
  isDestroyed(): boolean {
    return this.destroyed;
  }
  once(_name: 'destroyed', l: () => void): void {
    this.onDestroyed = l;
  }
  destroy(): void {
    this.destroyed = true;
    this.onDestroyed?.();
  }
  text(id: number): string {
    return this.events.map((e) => (e.id === id && 'data' in e ? Buffer.from(e.data).toString('utf8') : '')).join('');
  }
}

let rig: SessionRig;
let sessionId: string;
let containerId: string;
let registration: { dispose(): void | Promise<void> };
const viewers = async (): Promise<number> =>
  (await rig.sh(containerId, "tmux list-sessions -F '#{session_name}'"))
    .split('\n')
    .filter((n) => n.startsWith('nexus-view-')).length;
const call = (channel: string, event: unknown, ...args: unknown[]) => fake.ipcHandlers.get(channel)!(event, ...args);
const from = (sender: Sender, url = 'app://nexus/') => ({ senderFrame: { url, parent: null }, sender });

beforeAll(async () => {
  rig = await sessionRig();
  containerId = (await rig.addWorkspace('ipc')).containerId as string;
  sessionId = (await rig.service.create({ workspace: 'ipc', name: 'agent' })).id;
  await rig.service.idle();
  registration = registerTerminalIpc({ terminals: rigTerminals(rig), log: rig.host.core.log });
}, 180_000);

afterAll(async () => {
  await registration?.dispose();
  await rig?.dispose();
});

describe('the live terminal over Electron IPC (docker, tmux)', () => {
  it('opens for the app frame: typing is echoed back as data events; closing detaches the viewer', async () => {
    const sender = new Sender();
    const reply = (await call(TERMINAL_IPC.open, from(sender), sessionId)) as { result: number };
    const id = reply.result;
    await call(TERMINAL_IPC.send, from(sender), id, JSON.stringify({ type: 'resize', cols: 100, rows: 30 }));
    await call(TERMINAL_IPC.send, from(sender), id, JSON.stringify({ type: 'input', data: 'typed-over-ipc' }));
    await waitFor(() => sender.text(id).includes('typed-over-ipc'), 'the echo over IPC');
    expect(await viewers()).toBe(1);
    await call(TERMINAL_IPC.close, from(sender), id);
    await waitFor(async () => (await viewers()) === 0, 'the viewer detached');
    expect((await rig.service.get(sessionId)).status).toBe('running');
  });

  it('detaches when the window goes', async () => {
    const sender = new Sender();
    const id = ((await call(TERMINAL_IPC.open, from(sender), sessionId)) as { result: number }).result;
    await call(TERMINAL_IPC.send, from(sender), id, JSON.stringify({ type: 'resize', cols: 80, rows: 24 }));
    await waitFor(async () => (await viewers()) === 1, 'a viewer');
    sender.destroy();
    await waitFor(async () => (await viewers()) === 0, 'the viewer detached');
  });

  it('refuses other frames, bad and unknown ids, and another window using a channel it did not open', async () => {
    const sender = new Sender();
    for (const url of ['https://evil.example.com/', 'file:///etc/passwd'])
      expect(await call(TERMINAL_IPC.open, from(sender, url), sessionId)).toMatchObject({
        error: { code: 'forbidden' },
      });
    expect(await call(TERMINAL_IPC.open, from(sender), 'not-a-uuid')).toMatchObject({ error: { code: 'bad_request' } });
    expect(await call(TERMINAL_IPC.open, from(sender), randomUUID())).toMatchObject({ error: { code: 'not_found' } });
    const id = ((await call(TERMINAL_IPC.open, from(sender), sessionId)) as { result: number }).result;
    const other = new Sender();
    await call(TERMINAL_IPC.send, from(other), id, JSON.stringify({ type: 'resize', cols: 80, rows: 24 }));
    await call(TERMINAL_IPC.send, from(sender), id, 'x'.repeat(70_000));
    expect(sender.events).toEqual([{ id, closed: { code: 1009, reason: 'Message too big.' } }]);
    expect(await viewers()).toBe(0);
  });
});
