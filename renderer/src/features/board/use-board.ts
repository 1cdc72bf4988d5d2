import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useApi, useNexusEvent } from '../../api/context';

export const boardKey = ['board.list'] as const;

/** Every task with its comments and sessions, refreshed whenever core pushes `board.changed` (or a session changes). */
export function useBoard() {
  const api = useApi();
  const client = useQueryClient();
  const refresh = (): void => void client.invalidateQueries({ queryKey: boardKey });
  useNexusEvent('board.changed', refresh);
  useNexusEvent('sessions.changed', refresh);
  return useQuery({ queryKey: boardKey, queryFn: () => api['board.list']({}) });
}
