import { useQuery, useQueryClient } from '@tanstack/react-query';
import type { PermissionRequest } from '../../../../shared/contract/permissions';
import { useApi, useNexusEvent } from '../../api/context';

export const permissionsKey = ['permissions.list'] as const;

/** Every pending permission request, kept live by `permissions.changed` push events (no polling). */
export function usePermissions() {
  const api = useApi();
  const client = useQueryClient();
  useNexusEvent('permissions.changed', ({ requests }) =>
    client.setQueryData<{ requests: PermissionRequest[] }>(permissionsKey, { requests }),
  );
  return useQuery({ queryKey: permissionsKey, queryFn: () => api['permissions.list']({}) });
}

/** The pending requests of one session, oldest first. */
export function useSessionPermissions(sessionId: string): PermissionRequest[] {
  const all = usePermissions().data?.requests ?? [];
  return all.filter((r) => r.sessionId === sessionId).sort((a, b) => a.askedAt.localeCompare(b.askedAt));
}
