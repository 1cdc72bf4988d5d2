import { useQuery, useQueryClient } from '@tanstack/react-query';
import type { OpName, OpOutput, VaultStatus } from '../../../../shared/contract';
import { useApi, useNexusEvent } from '../../api/context';
import { useOperation } from '../../api/use-operation';

export const vaultStatusKey = ['vault.status'] as const;
export const secretsKey = ['secrets.list'] as const;

/** vault.status, kept live by `vault.changed` events. */
export function useVaultStatus() {
  const api = useApi();
  const client = useQueryClient();
  useNexusEvent('vault.changed', (status) => client.setQueryData<VaultStatus>(vaultStatusKey, status));
  return useQuery({ queryKey: vaultStatusKey, queryFn: () => api['vault.status']({}) });
}

/** secrets.list, refreshed on `secrets.changed` events. */
export function useSecrets() {
  const api = useApi();
  const client = useQueryClient();
  useNexusEvent('secrets.changed', () => void client.invalidateQueries({ queryKey: secretsKey }));
  return useQuery({ queryKey: secretsKey, queryFn: () => api['secrets.list']({}) });
}

/** A mutation on one operation that refreshes the vault status and the secrets list afterwards. */
export const useVaultOp = <K extends OpName>(name: K, onSuccess?: (result: OpOutput<K>) => void) =>
  useOperation(name, [vaultStatusKey, secretsKey], onSuccess);
