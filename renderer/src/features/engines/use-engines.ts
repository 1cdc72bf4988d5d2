import { opKey } from '../../api/query-keys';
import { useOpQuery } from '../../api/use-op-query';

export const enginesKey = opKey('engines.list');

/** engines.list, kept live by `engines.changed` (reachability, a pinned key, a removal; api/live-updates.ts). */
export function useEngines() {
  return useOpQuery('engines.list', {}, { retry: false });
}

export const formatBytes = (n: number | null): string =>
  n === null ? '…' : n >= 1024 ** 3 ? `${(n / 1024 ** 3).toFixed(1)} GiB` : `${Math.round(n / 1024 ** 2)} MiB`;
