import type { Workspace } from '../../../shared/contract/workspaces';
import { isNexusError } from '../../../shared/errors';
import type { WorkspaceDirectory, WorkspaceInfo } from './workspace-runtime';

/** What sessions read from the workspaces service (its public get/list). */
export interface WorkspaceReader {
  get(ref: string): Promise<Workspace>;
  list(): Promise<Workspace[]>;
}

export const workspaceInfo = (w: Workspace): WorkspaceInfo => ({
  id: w.id,
  name: w.name,
  containerId: w.containerId,
  running: w.status === 'running' && w.containerId !== null,
});

/** Adapts the workspaces service to the small interface sessions need. */
export function workspaceDirectory(workspaces: WorkspaceReader): WorkspaceDirectory {
  return {
    resolve: async (ref) => workspaceInfo(await workspaces.get(ref)),
    get: async (id) => {
      try {
        return workspaceInfo(await workspaces.get(id));
      } catch (e) {
        if (isNexusError(e) && e.code === 'not_found') return null;
        throw e;
      }
    },
    list: async () => (await workspaces.list()).map(workspaceInfo),
  };
}
