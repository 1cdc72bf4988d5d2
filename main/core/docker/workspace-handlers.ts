import type { Handlers } from '../handlers';

/** Workspaces arrive with the Docker worker service; until then the list is empty. */
export function workspaceHandlers(): Pick<Handlers, 'workspaces.list'> {
  return {
    'workspaces.list': () => ({ workspaces: [] }),
  };
}
