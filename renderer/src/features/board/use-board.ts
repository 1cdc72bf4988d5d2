import { opKey } from '../../api/query-keys';
import { useOpQuery } from '../../api/use-op-query';

export const boardKey = opKey('board.list');

/**
 * Every task with its comments and sessions, refreshed whenever core pushes `board.changed` (or a
 * session changes; api/live-updates.ts).
 */
export function useBoard() {
  return useOpQuery('board.list', {});
}
