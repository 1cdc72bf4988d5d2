import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { OpInput, OpName } from '../../../../shared/contract';
import { useApi, useNexusEvent } from '../../api/context';

export const reviewKey = ['review.list'] as const;

/** The review queue, refreshed whenever core pushes `review.changed`. */
export function useReviewQueue() {
  const api = useApi();
  const client = useQueryClient();
  useNexusEvent('review.changed', () => void client.invalidateQueries({ queryKey: reviewKey }));
  return useQuery({ queryKey: reviewKey, queryFn: () => api['review.list']({}) });
}

type DecisionOp = Extract<
  OpName,
  'review.approveMemory' | 'review.rejectMemory' | 'review.approveSkill' | 'review.rejectSkill'
>;

/** One decision on one item; the queue refreshes afterwards. */
export function useDecision<K extends DecisionOp>(op: K) {
  const api = useApi();
  const client = useQueryClient();
  return useMutation({
    mutationFn: (input: OpInput<K>) => (api[op] as (i: OpInput<K>) => Promise<unknown>)(input),
    onSettled: () => client.invalidateQueries({ queryKey: reviewKey }),
  });
}
