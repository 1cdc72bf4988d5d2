import { createContext, useContext, useEffect, useRef, type ReactNode } from 'react';
import type { EventMessage, EventName, EventPayload, NexusApi } from '../../../shared/contract';

const ApiContext = createContext<NexusApi | null>(null);

export function ApiProvider({ api, children }: { api: NexusApi; children: ReactNode }) {
  return <ApiContext.Provider value={api}>{children}</ApiContext.Provider>;
}

export function useApi(): NexusApi {
  const api = useContext(ApiContext);
  if (!api) throw new Error('useApi outside ApiProvider');
  return api;
}

/**
 * How long a list kept live by push events counts as fresh: opening its page again within this
 * refetches nothing. Past it (a dropped event stream may have missed events), the page refetches.
 */
export const PUSHED_STALE_MS = 30_000;

/** Runs `handler` for every push event named `name`. */
export function useNexusEvent<K extends EventName>(name: K, handler: (payload: EventPayload<K>) => void): void {
  const api = useApi();
  const ref = useRef(handler);
  ref.current = handler;
  useEffect(
    () =>
      api.subscribe((event: EventMessage) => {
        if (event.name === name) ref.current(event.payload as EventPayload<K>);
      }),
    [api, name],
  );
}
