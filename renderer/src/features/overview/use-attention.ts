import { useQuery, useQueryClient } from '@tanstack/react-query';
import type { FleetAttention } from '../../../../shared/attention';
import { useApi, useNexusEvent } from '../../api/context';

export const attentionKey = ['attention.get'] as const;

/** The fleet roll-up, kept live by `attention.changed` push events (no polling). */
export function useAttention() {
  const api = useApi();
  const client = useQueryClient();
  useNexusEvent('attention.changed', (fleet) => client.setQueryData<FleetAttention>(attentionKey, fleet));
  return useQuery({ queryKey: attentionKey, queryFn: () => api['attention.get']({}) });
}
