import type { NexusApi } from '../../../shared/contract';
import { RemoteError } from '../../../shared/errors';
import { httpApi } from './http-transport';

declare global {
  interface Window {
    /** Exposed by the Electron preload; absent in a plain browser. */
    nexus?: NexusApi;
  }
}

/** One client, two transports, chosen at start-up: Electron IPC when the preload is there, else HTTP. */
export function createApi(): { api: NexusApi; transport: 'ipc' | 'http' } {
  if (window.nexus) return { api: wrapErrors(window.nexus), transport: 'ipc' };
  return { api: httpApi(), transport: 'http' };
}

function wrapErrors(api: NexusApi): NexusApi {
  return new Proxy(api, {
    get(target, prop, receiver) {
      const value = Reflect.get(target, prop, receiver) as unknown;
      if (typeof value !== 'function' || prop === 'subscribe') return value;
      return (input: unknown) =>
        (value as (i: unknown) => Promise<unknown>)(input).catch((e: unknown) => Promise.reject(RemoteError.from(e)));
    },
  });
}
