import { useInfiniteQuery } from '@tanstack/react-query';
import { ACTIVITY_PAGE, type CallerKind } from '../../../../shared/contract';
import { useApi } from '../../api/context';

export interface ActivityFilters {
  callerKind: CallerKind | '';
  operation: string;
  outcome: string;
}

/** activity.list, newest first, one page at a time ("Older" fetches the next). */
export function useActivity(filters: ActivityFilters) {
  const api = useApi();
  return useInfiniteQuery({
    queryKey: ['activity.list', filters],
    initialPageParam: undefined as number | undefined,
    queryFn: ({ pageParam }) =>
      api['activity.list']({
        limit: ACTIVITY_PAGE,
        ...(filters.callerKind ? { caller: { kind: filters.callerKind } } : {}),
        ...(filters.operation.trim() ? { operation: filters.operation.trim() } : {}),
        ...(filters.outcome.trim() ? { outcome: filters.outcome.trim() } : {}),
        ...(pageParam !== undefined ? { before: pageParam } : {}),
      }),
    getNextPageParam: (last) => last.nextBefore ?? undefined,
  });
}
