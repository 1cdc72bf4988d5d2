import type { OpInput, OpName } from '../../../shared/contract';

/**
 * Every query's key, from one factory: the operation's name, then its input when it has one
 * (`['sessions.diff', { session, offset, limit }]`). A key with a partial input — or none — matches
 * every query it begins (react-query matches keys by prefix and objects partially), so
 * `opKey('sessions.diff', { session })` refreshes every page of one session's diff.
 */
export function opKey<K extends OpName>(op: K, input?: Partial<OpInput<K>>): readonly [K] | readonly [K, object] {
  return input === undefined || Object.keys(input).length === 0 ? ([op] as const) : ([op, input] as const);
}

/** Keys of state the renderer keeps beside the operations' answers (filled by push events only). */
export const liveKey = {
  /** The latest progress step of each workspace's long operation, by workspace id. */
  workspaceProgress: ['live', 'workspaceProgress'] as const,
};
