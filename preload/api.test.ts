import { describe, expect, it, vi } from 'vitest';
import { opNames } from '../shared/contract';
import { EVENT_CHANNEL, opChannel } from '../shared/ipc';
import { buildPreloadApi, type IpcRendererLike } from './api';

function fakeIpc(reply: unknown): IpcRendererLike & { invoke: ReturnType<typeof vi.fn> } {
  return { invoke: vi.fn(async () => reply), on: vi.fn(), removeListener: vi.fn() };
}

describe('preload API', () => {
  it('exposes exactly one named function per contract operation plus subscribe, and nothing of ipcRenderer', () => {
    const api = buildPreloadApi(fakeIpc({ result: 1 }));
    expect(Object.keys(api).sort()).toEqual([...opNames, 'subscribe'].sort());
    expect(api).not.toHaveProperty('invoke');
    expect(api).not.toHaveProperty('send');
    expect(Object.isFrozen(api)).toBe(true);
  });

  it('calls the fixed channel of the operation and returns the result', async () => {
    const ipc = fakeIpc({ result: { ok: true } });
    const api = buildPreloadApi(ipc) as Record<string, (i: unknown) => Promise<unknown>>;
    await expect(api['app.info']!({})).resolves.toEqual({ ok: true });
    expect(ipc.invoke).toHaveBeenCalledWith(opChannel('app.info'), {});
  });

  it('turns an error reply into a rejected promise that keeps the code', async () => {
    const api = buildPreloadApi(fakeIpc({ error: { code: 'forbidden', message: 'no' } })) as Record<
      string,
      (i: unknown) => Promise<unknown>
    >;
    await expect(api['app.info']!({})).rejects.toMatchObject({ code: 'forbidden', message: 'no' });
  });

  it('subscribes to the event channel and unsubscribes', () => {
    const ipc = fakeIpc(null);
    const api = buildPreloadApi(ipc) as { subscribe: (l: () => void) => () => void };
    const off = api.subscribe(() => {});
    expect(ipc.on).toHaveBeenCalledWith(EVENT_CHANNEL, expect.any(Function));
    off();
    expect(ipc.removeListener).toHaveBeenCalledWith(EVENT_CHANNEL, expect.any(Function));
  });
});
