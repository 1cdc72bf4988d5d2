import { opKey } from '../api/query-keys';
import { useOpQuery } from '../api/use-op-query';

export const appInfoKey = opKey('app.info');

/** app.info, kept live by `app.status` push events (api/live-updates.ts). */
export function useAppInfo() {
  return useOpQuery('app.info', {});
}
