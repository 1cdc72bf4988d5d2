import { randomUUID } from 'node:crypto';
import { sessionBranch } from '../../main/core/sessions/session-paths';
import { SessionStore, type SessionRow } from '../../main/core/sessions/session-store';
import type { Db } from '../../main/core/store/open';

/**
 * A sessions row as a finished create leaves it (running, idle, on `nexus/<name>`), with only what
 * a test cares about given: `sessionRow({ workspace_id, name: 'one', status: 'creating' })`.
 */
export function sessionRow(fields: Partial<SessionRow> & Pick<SessionRow, 'workspace_id'>): SessionRow {
  const now = new Date().toISOString();
  const name = fields.name ?? `s-${randomUUID().slice(0, 8)}`;
  return {
    id: randomUUID(),
    name,
    branch: sessionBranch(name),
    status: 'running',
    reason: null,
    agent_state: 'idle',
    agent_state_at: null,
    agent_message: null,
    agent_session_id: randomUUID(),
    window_id: null,
    run_id: null,
    task_id: null,
    tools_reason: null,
    created_at: now,
    updated_at: now,
    ...fields,
  };
}

/** Inserts `sessionRow(fields)` through the sessions store (the product's own INSERT); returns the row. */
export function insertSession(db: Db, fields: Partial<SessionRow> & Pick<SessionRow, 'workspace_id'>): SessionRow {
  const row = sessionRow(fields);
  new SessionStore(db).insert(row);
  return row;
}
