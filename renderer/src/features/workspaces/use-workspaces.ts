import { useQuery } from '@tanstack/react-query';
import type { Progress } from '../../../../shared/contract';
import { liveKey, opKey } from '../../api/query-keys';
import { useOpQuery } from '../../api/use-op-query';

export const workspacesKey = opKey('workspaces.list');
export const orphansKey = opKey('workspaces.orphans');
export const delegationsKey = opKey('delegation.list');

/** The workspace list, kept live by `workspaces.changed` events (api/live-updates.ts; no polling). */
export function useWorkspaces() {
  return useOpQuery('workspaces.list', {});
}

const NO_PROGRESS: Record<string, Progress> = {};

/**
 * The latest progress step of each workspace's long operation, by workspace id (the event's
 * `workspaceId`), kept by the app's live updates whichever page was open when it came.
 */
export function useWorkspaceProgress(): Record<string, Progress> {
  const progress = useQuery({
    queryKey: liveKey.workspaceProgress,
    queryFn: () => NO_PROGRESS,
    staleTime: Infinity,
    gcTime: Infinity,
  });
  return progress.data ?? NO_PROGRESS;
}

export function useOrphans() {
  return useOpQuery('workspaces.orphans', {}, { retry: false });
}

/** Each workspace's delegated credential (delegation.list), refreshed whenever a token changes (every delegation change is one). */
export function useDelegations() {
  return useOpQuery('delegation.list', {}, { retry: false });
}
