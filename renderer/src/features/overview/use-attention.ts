import { useQuery, useQueryClient } from '@tanstack/react-query';
import type { FleetAttention } from '../../../../shared/attention';
import { PUSHED_STALE_MS, useApi, useNexusEvent } from '../../api/context';

export const attentionKey = ['attention.get'] as const;

/** The fleet roll-up, kept live by `attention.changed` push events (no polling). */
export function useAttention() {
  const api = useApi();
  const client = useQueryClient();
  useNexusEvent('attention.changed', (fleet) => client.setQueryData<FleetAttention>(attentionKey, fleet));
  // Push events keep it current, so opening the page again within PUSHED_STALE_MS shows the cache
  // without fetching the whole list again (with 500 sessions that fetch was a fifth of the render).
  return useQuery({ queryKey: attentionKey, queryFn: () => api['attention.get']({}), staleTime: PUSHED_STALE_MS });
}
