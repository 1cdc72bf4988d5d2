import type { NameLookup } from '../platform';
import { SessionStore } from '../sessions';
import type { Db } from '../store';
import { WorkspaceStore } from '../workspaces';

/** Workspace and session names for the rooms below them (the board, the review queue, the tracker), from their stores. */
export function nameLookup(db: Db): NameLookup {
  const workspaces = new WorkspaceStore(db);
  const sessions = new SessionStore(db);
  return {
    workspaceName: (id) => workspaces.find(id)?.name ?? null,
    session: (id) => {
      const row = sessions.get(id);
      return row ? { name: row.name, workspaceId: row.workspace_id } : null;
    },
  };
}
