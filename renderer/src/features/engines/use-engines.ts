import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useApi, useNexusEvent } from '../../api/context';

export const enginesKey = ['engines.list'] as const;

/** engines.list, refreshed on `engines.changed` events (reachability, a pinned key, a removal). */
export function useEngines() {
  const api = useApi();
  const client = useQueryClient();
  useNexusEvent('engines.changed', () => void client.invalidateQueries({ queryKey: enginesKey }));
  return useQuery({ queryKey: enginesKey, queryFn: () => api['engines.list']({}), retry: false });
}

export const formatBytes = (n: number | null): string =>
  n === null ? '…' : n >= 1024 ** 3 ? `${(n / 1024 ** 3).toFixed(1)} GiB` : `${Math.round(n / 1024 ** 2)} MiB`;
