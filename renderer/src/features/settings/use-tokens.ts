import type { OpName, OpOutput } from '../../../../shared/contract';
import { opKey } from '../../api/query-keys';
import { useOpQuery } from '../../api/use-op-query';
import { useOperation } from '../../api/use-operation';

export const tokensKey = opKey('tokens.list');
export const connectKey = opKey('connect.info');

/** tokens.list, refreshed on `tokens.changed` events (api/live-updates.ts). */
export function useTokens() {
  return useOpQuery('tokens.list', {});
}

export function useConnectInfo() {
  return useOpQuery('connect.info', {});
}

/** A mutation on one operation that refreshes the tokens list and the connect info afterwards. */
export const useAccessOp = <K extends OpName>(name: K, onSuccess?: (result: OpOutput<K>) => void) =>
  useOperation(name, [tokensKey, connectKey], onSuccess);
