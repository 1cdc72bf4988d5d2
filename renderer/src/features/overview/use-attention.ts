import { PUSHED_STALE_MS } from '../../api/context';
import { opKey } from '../../api/query-keys';
import { useOpQuery } from '../../api/use-op-query';

export const attentionKey = opKey('attention.get');

/** The fleet roll-up, kept live by `attention.changed` push events (api/live-updates.ts; no polling). */
export function useAttention() {
  // Push events keep it current, so opening the page again within PUSHED_STALE_MS shows the cache
  // without fetching the whole list again (with 500 sessions that fetch was a fifth of the render).
  return useOpQuery('attention.get', {}, { staleTime: PUSHED_STALE_MS });
}
