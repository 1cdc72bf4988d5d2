import { NexusError } from '../../../shared/errors';
import type { WorkspaceRuntime } from '../workspaces';
import type { SessionRow, SessionStore } from './session-store';

/**
 * Finding a session from the store alone (no engine call): by id, or by `<workspace>/<name>`.
 * The session service uses it, and so does the delegated scope, which needs no session service.
 */
export class SessionLookup {
  constructor(
    private readonly store: Pick<SessionStore, 'get' | 'byName'>,
    private readonly workspaces: Pick<WorkspaceRuntime, 'info'>,
  ) {}

  /** By id or `<workspace>/<name>`; throws not_found. */
  row(ref: string): SessionRow {
    const byId = this.store.get(ref);
    if (byId) return byId;
    const slash = ref.indexOf('/');
    if (slash > 0) {
      const ws = this.workspaces.info(ref.slice(0, slash));
      const row = this.store.byName(ws.id, ref.slice(slash + 1));
      if (row) return row;
    }
    throw new NexusError('not_found', `No session ${ref}.`);
  }

  /** Whether session `id` exists and belongs to workspace `workspaceId`. */
  inWorkspace(id: string, workspaceId: string): boolean {
    return this.store.get(id)?.workspace_id === workspaceId;
  }
}
