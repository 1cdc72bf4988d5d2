import { useQuery, useQueryClient } from '@tanstack/react-query';
import type { OpName, OpOutput } from '../../../../shared/contract';
import { useApi, useNexusEvent } from '../../api/context';
import { useOperation } from '../../api/use-operation';

export const tokensKey = ['tokens.list'] as const;
export const connectKey = ['connect.info'] as const;

/** tokens.list, refreshed on `tokens.changed` events. */
export function useTokens() {
  const api = useApi();
  const client = useQueryClient();
  useNexusEvent('tokens.changed', () => void client.invalidateQueries({ queryKey: tokensKey }));
  return useQuery({ queryKey: tokensKey, queryFn: () => api['tokens.list']({}) });
}

export function useConnectInfo() {
  const api = useApi();
  return useQuery({ queryKey: connectKey, queryFn: () => api['connect.info']({}) });
}

/** A mutation on one operation that refreshes the tokens list and the connect info afterwards. */
export const useAccessOp = <K extends OpName>(name: K, onSuccess?: (result: OpOutput<K>) => void) =>
  useOperation(name, [tokensKey, connectKey], onSuccess);
