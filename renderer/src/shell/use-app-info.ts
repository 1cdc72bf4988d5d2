import { useQuery, useQueryClient } from '@tanstack/react-query';
import type { AppInfo } from '../../../shared/contract';
import { useApi, useNexusEvent } from '../api/context';

export const appInfoKey = ['app.info'] as const;

/** app.info, kept live by `app.status` push events. */
export function useAppInfo() {
  const api = useApi();
  const client = useQueryClient();
  useNexusEvent('app.status', (status) => {
    client.setQueryData<AppInfo>(appInfoKey, (old) => (old ? { ...old, ...status } : old));
  });
  return useQuery({ queryKey: appInfoKey, queryFn: () => api['app.info']({}) });
}
