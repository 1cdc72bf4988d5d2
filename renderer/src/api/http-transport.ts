import { eventNames, opNames, type EventMessage, type NexusApi } from '../../../shared/contract';
import type { Reply } from '../../../shared/ipc';
import { RemoteError } from '../../../shared/errors';

/**
 * The headless host: POST /api/rpc/<op> with the session cookie, events over SSE. `headers` adds
 * headers to every call (the phone's CSRF token on the public origin).
 */
export function httpApi(base = '', headers: () => Record<string, string> = () => ({})): NexusApi {
  const api: Record<string, unknown> = {};
  for (const op of opNames) {
    api[op] = async (input: unknown) => {
      const res = await fetch(`${base}/api/rpc/${op}`, {
        method: 'POST',
        credentials: 'same-origin',
        headers: { 'content-type': 'application/json', ...headers() },
        body: JSON.stringify(input ?? {}),
      });
      const reply = (await res
        .json()
        .catch(() => ({ error: { code: 'internal', message: `HTTP ${res.status}` } }))) as Reply<unknown>;
      if ('error' in reply) throw new RemoteError(reply.error);
      return reply.result;
    };
  }
  // One EventSource shared by every subscriber; it reconnects by itself after a drop.
  const listeners = new Set<(event: EventMessage) => void>();
  let source: EventSource | null = null;
  api.subscribe = (listener: (event: EventMessage) => void) => {
    listeners.add(listener);
    if (!source) {
      source = new EventSource(`${base}/api/events`, { withCredentials: true });
      for (const name of eventNames) {
        source.addEventListener(name, (e) => {
          const message = { name, payload: JSON.parse((e as MessageEvent<string>).data) } as EventMessage;
          for (const l of listeners) l(message);
        });
      }
    }
    return () => {
      listeners.delete(listener);
      if (listeners.size === 0 && source) {
        source.close();
        source = null;
      }
    };
  };
  return api as NexusApi;
}
