import type { PermissionRequest } from '../../../../shared/contract/permissions';
import { opKey } from '../../api/query-keys';
import { useOpQuery } from '../../api/use-op-query';

export const permissionsKey = opKey('permissions.list');

/**
 * Every pending permission request, kept live by `permissions.changed` push events (api/live-updates.ts; no polling).
 * Each event carries the whole list, so the cache is never refetched on its own: a refetch started
 * before an event could land after it and put back a list that no longer holds.
 */
export function usePermissions() {
  return useOpQuery('permissions.list', {}, { staleTime: Infinity });
}

/** The pending requests of one session, oldest first. */
export function useSessionPermissions(sessionId: string): PermissionRequest[] {
  return bySession(usePermissions().data?.requests ?? []).get(sessionId) ?? [];
}

/** Pending requests grouped by session, each group oldest first (one pass for a whole list of sessions). */
export function bySession(requests: readonly PermissionRequest[]): Map<string, PermissionRequest[]> {
  const out = new Map<string, PermissionRequest[]>();
  for (const r of [...requests].sort((a, b) => a.askedAt.localeCompare(b.askedAt)))
    out.set(r.sessionId, [...(out.get(r.sessionId) ?? []), r]);
  return out;
}
