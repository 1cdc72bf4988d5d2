import type { OpName, OpOutput } from '../../../../shared/contract';
import { opKey } from '../../api/query-keys';
import { useOpQuery } from '../../api/use-op-query';
import { useOperation } from '../../api/use-operation';

export const vaultStatusKey = opKey('vault.status');
export const secretsKey = opKey('secrets.list');

/** vault.status, kept live by `vault.changed` events (api/live-updates.ts). */
export function useVaultStatus() {
  return useOpQuery('vault.status', {});
}

/** secrets.list, refreshed on `secrets.changed` events (api/live-updates.ts). */
export function useSecrets() {
  return useOpQuery('secrets.list', {});
}

/** A mutation on one operation that refreshes the vault status and the secrets list afterwards. */
export const useVaultOp = <K extends OpName>(name: K, onSuccess?: (result: OpOutput<K>) => void) =>
  useOperation(name, [vaultStatusKey, secretsKey], onSuccess);
