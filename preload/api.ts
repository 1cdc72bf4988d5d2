import { opNames, type EventMessage } from '../shared/contract';
import { EVENT_CHANNEL, opChannel, type Reply } from '../shared/ipc';
import { RemoteError } from '../shared/errors';
import { TERMINAL_IPC, type TerminalBridge, type TerminalIpcEvent } from '../shared/terminal';

export interface IpcRendererLike {
  invoke(channel: string, ...args: unknown[]): Promise<unknown>;
  on(channel: string, listener: (event: unknown, ...args: unknown[]) => void): unknown;
  removeListener(channel: string, listener: (event: unknown, ...args: unknown[]) => void): unknown;
}

/** Builds the object the preload exposes: one named function per contract operation, plus subscribe. */
export function buildPreloadApi(ipc: IpcRendererLike): Record<string, unknown> {
  const api: Record<string, unknown> = {};
  for (const op of opNames) {
    api[op] = async (input: unknown) => {
      const reply = (await ipc.invoke(opChannel(op), input ?? {})) as Reply<unknown>;
      if ('error' in reply) throw new RemoteError(reply.error);
      return reply.result;
    };
  }
  api.subscribe = (listener: (event: EventMessage) => void) => {
    const wrapped = (_e: unknown, message: unknown): void => listener(message as EventMessage);
    ipc.on(EVENT_CHANNEL, wrapped);
    return () => void ipc.removeListener(EVENT_CHANNEL, wrapped);
  };
  return Object.freeze(api);
}

/** The live terminal over IPC (`window.nexusTerminal`): open a channel, send messages, get its events. */
export function buildTerminalBridge(ipc: IpcRendererLike): TerminalBridge {
  return Object.freeze({
    open: async (sessionId: string) => {
      const reply = (await ipc.invoke(TERMINAL_IPC.open, sessionId)) as Reply<number>;
      if ('error' in reply) throw new RemoteError(reply.error);
      return reply.result;
    },
    send: (id: number, text: string) => void ipc.invoke(TERMINAL_IPC.send, id, text),
    close: (id: number) => void ipc.invoke(TERMINAL_IPC.close, id),
    subscribe: (listener: (event: TerminalIpcEvent) => void) => {
      const wrapped = (_e: unknown, event: unknown): void => listener(event as TerminalIpcEvent);
      ipc.on(TERMINAL_IPC.event, wrapped);
      return () => void ipc.removeListener(TERMINAL_IPC.event, wrapped);
    },
  });
}
