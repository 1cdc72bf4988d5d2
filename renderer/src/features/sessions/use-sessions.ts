import { PUSHED_STALE_MS } from '../../api/context';
import { opKey } from '../../api/query-keys';
import { useOpQuery } from '../../api/use-op-query';

export const sessionsKey = opKey('sessions.list');

/** Every session, kept live by `sessions.changed` push events (api/live-updates.ts; no polling). */
export function useSessions() {
  // Push events keep it current, so opening the page again within PUSHED_STALE_MS shows the cache
  // without fetching the whole list again (with 500 sessions that fetch was a fifth of the render).
  return useOpQuery('sessions.list', {}, { staleTime: PUSHED_STALE_MS });
}
