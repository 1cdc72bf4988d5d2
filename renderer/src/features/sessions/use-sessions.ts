import { useQuery, useQueryClient } from '@tanstack/react-query';
import type { Session } from '../../../../shared/contract/sessions';
import { PUSHED_STALE_MS, useApi, useNexusEvent } from '../../api/context';
import { applySessionChange } from './session-list';

export const sessionsKey = ['sessions.list'] as const;

/**
 * Applies `sessions.changed` to the cached list whenever there is one, on every page (App mounts
 * it), so the list stays live while the Sessions page is closed and opening it needs no fetch.
 */
export function useSessionsLive(): void {
  const client = useQueryClient();
  useNexusEvent('sessions.changed', (change) =>
    client.setQueryData<{ sessions: Session[] }>(sessionsKey, (old) =>
      old ? { sessions: applySessionChange(old.sessions, change) } : old,
    ),
  );
}

/** Every session, kept live by `sessions.changed` push events (useSessionsLive; no polling). */
export function useSessions() {
  const api = useApi();
  // Push events keep it current, so opening the page again within PUSHED_STALE_MS shows the cache
  // without fetching the whole list again (with 500 sessions that fetch was a fifth of the render).
  return useQuery({ queryKey: sessionsKey, queryFn: () => api['sessions.list']({}), staleTime: PUSHED_STALE_MS });
}
