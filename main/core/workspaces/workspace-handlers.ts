import type { Handlers } from '../handlers';
import type { WorkspaceService } from './workspace-service';

type WorkspaceOps =
  | 'workspaces.list'
  | 'workspaces.get'
  | 'workspaces.create'
  | 'workspaces.start'
  | 'workspaces.stop'
  | 'workspaces.delete'
  | 'workspaces.orphans'
  | 'workspaces.removeOrphan'
  | 'workspaces.disk';

/** The workspaces.* operations, each a thin call into the workspace service. */
export function workspaceHandlers(service: WorkspaceService): Pick<Handlers, WorkspaceOps> {
  return {
    'workspaces.list': () => ({ workspaces: service.list() }),
    'workspaces.get': (input) => service.get(input.workspace),
    'workspaces.create': (input) => service.create(input),
    'workspaces.start': (input) => service.start(input.workspace),
    'workspaces.stop': (input) => service.stop(input.workspace),
    'workspaces.delete': (input) => service.delete(input.workspace),
    'workspaces.orphans': async () => ({ orphans: await service.orphans() }),
    'workspaces.removeOrphan': (input) => service.removeOrphan(input.containerId),
    'workspaces.disk': (input) => service.disk(input.workspace),
  };
}
