import { useQuery, type UseQueryOptions } from '@tanstack/react-query';
import type { OpInput, OpName, OpOutput } from '../../../shared/contract';
import { useApi } from './context';
import { opKey } from './query-keys';

/** A query on one contract operation, keyed by `opKey` (so push events and mutations find it). */
export function useOpQuery<K extends OpName>(
  op: K,
  input: OpInput<K>,
  options: Omit<UseQueryOptions<OpOutput<K>, Error>, 'queryKey' | 'queryFn'> = {},
) {
  const api = useApi();
  // The indexed call loses the link between K and its input/output types; NexusApi guarantees it.
  const call = api[op] as unknown as (i: OpInput<K>) => Promise<OpOutput<K>>;
  return useQuery<OpOutput<K>, Error>({ queryKey: opKey(op, input), queryFn: () => call(input), ...options });
}
