import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import type { Progress, Workspace } from '../../../../shared/contract';
import { useApi, useNexusEvent } from '../../api/context';

export const workspacesKey = ['workspaces.list'] as const;
export const orphansKey = ['workspaces.orphans'] as const;
export const fleetKey = ['fleet.list'] as const;

/** The workspace list, kept live by `workspaces.changed` events (no polling). */
export function useWorkspaces() {
  const api = useApi();
  const client = useQueryClient();
  useNexusEvent('workspaces.changed', ({ workspace, removedId }) => {
    client.setQueryData<{ workspaces: Workspace[] }>(workspacesKey, (old) => {
      if (!old) return old;
      if (removedId) return { workspaces: old.workspaces.filter((w) => w.id !== removedId) };
      if (!workspace) return old;
      const known = old.workspaces.some((w) => w.id === workspace.id);
      return {
        workspaces: known
          ? old.workspaces.map((w) => (w.id === workspace.id ? workspace : w))
          : [...old.workspaces, workspace],
      };
    });
    void client.invalidateQueries({ queryKey: orphansKey });
  });
  return useQuery({ queryKey: workspacesKey, queryFn: () => api['workspaces.list']({}) });
}

/** The latest progress step of each workspace's long operation, by workspace id. */
export function useWorkspaceProgress(): Record<string, Progress> {
  const [progress, setProgress] = useState<Record<string, Progress>>({});
  useNexusEvent('progress', (p) => {
    const m = /^workspace:([^:]+):/.exec(p.id);
    const id = m?.[1];
    if (id) setProgress((old) => ({ ...old, [id]: p }));
  });
  return progress;
}

export function useOrphans() {
  const api = useApi();
  return useQuery({ queryKey: orphansKey, queryFn: () => api['workspaces.orphans']({}), retry: false });
}

/** Each workspace's fleet credential (fleet.list), refreshed whenever a token changes (every fleet change is one). */
export function useFleetCredentials() {
  const api = useApi();
  const client = useQueryClient();
  useNexusEvent('tokens.changed', () => void client.invalidateQueries({ queryKey: fleetKey }));
  return useQuery({ queryKey: fleetKey, queryFn: () => api['fleet.list']({}), retry: false });
}
