import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { OpInput, OpName, OpOutput } from '../../../../shared/contract';
import { useApi, useNexusEvent } from '../../api/context';

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
export function useAccessOp<K extends OpName>(name: K, onSuccess?: (result: OpOutput<K>) => void) {
  const api = useApi();
  const client = useQueryClient();
  // The indexed call loses the link between K and its input/output types; NexusApi guarantees it.
  const call = api[name] as unknown as (input: OpInput<K>) => Promise<OpOutput<K>>;
  return useMutation<OpOutput<K>, Error, OpInput<K>>({
    mutationFn: (input) => call(input),
    onSuccess: async (result) => {
      onSuccess?.(result);
      await Promise.all([client.invalidateQueries({ queryKey: tokensKey }), client.invalidateQueries({ queryKey: connectKey })]);
    },
  });
}
