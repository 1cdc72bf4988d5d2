import { ipcMain, type IpcMainInvokeEvent, type WebContents } from 'electron';
import { NexusError } from '../../shared/errors';
import type { Reply } from '../../shared/ipc';
import { TERMINAL_IPC, TERMINAL_MAX_FRAME, TerminalClose, type TerminalIpcEvent } from '../../shared/terminal';
import type { CoreApi } from '../core';
import type { Disposable } from '../core/disposable';
import { openTerminalChannel, type TerminalChannel } from '../core/terminal';
import { isTrustedSender } from './ipc';

/**
 * The live terminal for the Electron window, over IPC: the app's top frame only, the same channel
 * (messages, limits, close codes) as the host's WebSocket. A channel belongs to the window that
 * opened it and ends when that window goes.
 */
export function registerTerminalIpc(core: Pick<CoreApi, 'terminals' | 'log'>): Disposable {
  const channels = new Map<number, { channel: TerminalChannel; sender: WebContents }>();
  let next = 1;
  const mine = (event: IpcMainInvokeEvent, id: unknown) => {
    const c = typeof id === 'number' ? channels.get(id) : undefined;
    return c && isTrustedSender(event) && c.sender === event.sender ? c : undefined;
  };
  ipcMain.handle(TERMINAL_IPC.open, async (event, sessionId: unknown): Promise<Reply<number>> => {
    if (!isTrustedSender(event)) return { error: { code: 'forbidden', message: 'Untrusted sender.' } };
    try {
      const target = await core.terminals.resolve(typeof sessionId === 'string' ? sessionId : '');
      const id = next++;
      const sender = event.sender;
      const emit = (e: TerminalIpcEvent): void => {
        if (!sender.isDestroyed()) sender.send(TERMINAL_IPC.event, e);
      };
      const channel = openTerminalChannel({ terminals: core.terminals, log: core.log }, target, {
        send: (bytes, done) => (emit({ id, data: bytes }), done()),
        buffered: () => 0,
        close: (code, reason) => (channels.delete(id), emit({ id, closed: { code, reason } })),
      });
      channels.set(id, { channel, sender });
      sender.once('destroyed', () => (channels.get(id)?.channel.closed(), channels.delete(id)));
      return { result: id };
    } catch (e) {
      return { error: e instanceof NexusError ? e.toWire() : { code: 'internal', message: 'Internal error.' } };
    }
  });
  ipcMain.handle(TERMINAL_IPC.send, (event, id: unknown, text: unknown) => {
    const c = mine(event, id);
    if (!c) return;
    if (typeof text === 'string' && Buffer.byteLength(text) <= TERMINAL_MAX_FRAME) return c.channel.message(text);
    // As the WebSocket does with an oversized frame.
    channels.delete(id as number);
    c.channel.closed();
    if (!c.sender.isDestroyed())
      c.sender.send(TERMINAL_IPC.event, { id, closed: { code: TerminalClose.tooBig, reason: 'Message too big.' } });
  });
  ipcMain.handle(TERMINAL_IPC.close, (event, id: unknown) => {
    const c = mine(event, id);
    if (!c) return;
    channels.delete(id as number);
    c.channel.closed();
  });
  return {
    dispose: () => {
      for (const channel of Object.values(TERMINAL_IPC)) ipcMain.removeHandler(channel);
      for (const { channel } of channels.values()) channel.closed();
      channels.clear();
    },
  };
}
