import { useMutation, useQueryClient, type QueryKey } from '@tanstack/react-query';
import type { OpInput, OpName, OpOutput } from '../../../shared/contract';
import { useApi } from './context';

/** A mutation on one contract operation that refreshes the given queries once it succeeds. */
export function useOperation<K extends OpName>(
  name: K,
  refresh: readonly QueryKey[],
  onSuccess?: (result: OpOutput<K>) => void,
) {
  const api = useApi();
  const client = useQueryClient();
  // The indexed call loses the link between K and its input/output types; NexusApi guarantees it.
  const call = api[name] as unknown as (input: OpInput<K>) => Promise<OpOutput<K>>;
  return useMutation<OpOutput<K>, Error, OpInput<K>>({
    mutationFn: (input) => call(input),
    onSuccess: async (result) => {
      onSuccess?.(result);
      await Promise.all(refresh.map((queryKey) => client.invalidateQueries({ queryKey })));
    },
  });
}
