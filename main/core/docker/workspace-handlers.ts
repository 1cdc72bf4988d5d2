import type { Handlers } from '../handlers';
import { notYet } from '../not-yet';

type WorkspaceOps = 'workspaces.list' | 'workspaces.get' | 'workspaces.create' | 'workspaces.start' | 'workspaces.stop' | 'workspaces.delete' | 'workspaces.orphans' | 'workspaces.removeOrphan';

/** Placeholder until the Docker worker service lands: the list is empty, changes are refused. */
export function workspaceHandlers(): Pick<Handlers, WorkspaceOps> {
  const later = notYet('Workspace control');
  return {
    'workspaces.list': () => ({ workspaces: [] }),
    'workspaces.get': later,
    'workspaces.create': later,
    'workspaces.start': later,
    'workspaces.stop': later,
    'workspaces.delete': later,
    'workspaces.orphans': () => ({ orphans: [] }),
    'workspaces.removeOrphan': later,
  };
}
