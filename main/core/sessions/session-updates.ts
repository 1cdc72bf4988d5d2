import type { Session } from '../../../shared/contract/sessions';
import type { EventBus } from '../events';
import type { WorkspaceRuntime } from '../workspaces';
import type { SessionPatch, SessionRow, SessionStore } from './session-store';

/**
 * A row as the contract's Session, and the one way a change to a session is saved and told
 * (`sessions.changed`): every part of the sessions module changes a row through this.
 */
export class SessionUpdates {
  constructor(
    private readonly store: Pick<SessionStore, 'update'>,
    private readonly events: Pick<EventBus, 'emit'>,
    /** Only for the workspace's name when the caller has none; the store's record, never the engine. */
    private readonly workspaces: Pick<WorkspaceRuntime, 'find'>,
  ) {}

  /** Saves the change and tells everyone; null when the session is gone. */
  patch(id: string, patch: SessionPatch): Session | null {
    const row = this.store.update(id, patch);
    if (!row) return null;
    const session = this.session(row);
    this.emit(session);
    return session;
  }

  emit(session: Session): void {
    this.events.emit('sessions.changed', { session });
  }

  removed(id: string): void {
    this.events.emit('sessions.changed', { session: null, removedId: id });
  }

  /** The workspace's name comes from the store (given, or looked up there), never from the engine. */
  session(row: SessionRow, workspaceName?: string): Session {
    return {
      id: row.id,
      workspaceId: row.workspace_id,
      workspaceName: workspaceName ?? this.workspaces.find(row.workspace_id)?.name ?? row.workspace_id,
      name: row.name,
      branch: row.branch,
      agent: row.agent,
      status: row.status,
      reason: row.reason,
      agentState: row.agent_state,
      agentStateAt: row.agent_state_at,
      agentMessage: row.agent_message,
      taskId: row.task_id,
      toolsReason: row.tools_reason,
      limitedUntil: row.limited_until ?? null,
      createdAt: row.created_at,
      updatedAt: row.updated_at,
    };
  }
}
