import { ipcMain, type IpcMainInvokeEvent, type WebContents } from 'electron';
import { opNames } from '../../shared/contract';
import { NexusError } from '../../shared/errors';
import { APP_ORIGIN, EVENT_CHANNEL, opChannel, type Reply } from '../../shared/ipc';
import type { CoreApi } from '../core';
import type { Disposable } from '../core/disposable';
import { operatorContext } from '../core/handlers';

/** Only the app's own top-level frame may call core over IPC. */
export function isTrustedSender(event: Pick<IpcMainInvokeEvent, 'senderFrame'>): boolean {
  const frame = event.senderFrame;
  if (!frame || frame.parent !== null) return false;
  return frame.url.startsWith(`${APP_ORIGIN}/`);
}

/** One fixed channel per operation; input is parsed by the dispatcher with the contract's schema. */
export function registerIpc(
  core: Pick<CoreApi, 'dispatcher' | 'events'>,
  target: () => WebContents | null,
): Disposable {
  for (const op of opNames) {
    ipcMain.handle(opChannel(op), async (event, input: unknown): Promise<Reply<unknown>> => {
      if (!isTrustedSender(event)) return { error: { code: 'forbidden', message: 'Untrusted sender.' } };
      try {
        return { result: await core.dispatcher.call(op, input, operatorContext('ipc')) };
      } catch (e) {
        return { error: e instanceof NexusError ? e.toWire() : { code: 'internal', message: 'Internal error.' } };
      }
    });
  }
  const subscription = core.events.subscribe((event) => target()?.send(EVENT_CHANNEL, event));
  return {
    dispose: () => {
      for (const op of opNames) ipcMain.removeHandler(opChannel(op));
      subscription.dispose();
    },
  };
}
