import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { OpInput, OpName } from '../../../../shared/contract';
import { useApi } from '../../api/context';
import { opKey } from '../../api/query-keys';
import { useOpQuery } from '../../api/use-op-query';

export const reviewKey = opKey('review.list');

/** The review queue, refreshed whenever core pushes `review.changed` (api/live-updates.ts). */
export function useReviewQueue() {
  return useOpQuery('review.list', {});
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
