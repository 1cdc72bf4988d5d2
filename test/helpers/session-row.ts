import { SessionStore, newSessionRow, type SessionRow } from '../../main/core/sessions/session-store';
import type { Db } from '../../main/core/store/open';

type Fields = Partial<SessionRow> & Pick<SessionRow, 'workspace_id'>;

/**
 * A sessions row as a finished create leaves it (running, idle, on `nexus/<name>`), with only what
 * a test cares about given: `sessionRow({ workspace_id, name: 'one', status: 'creating' })`.
 */
export function sessionRow(fields: Fields): SessionRow {
  const fresh = newSessionRow(fields.workspace_id, fields.name ?? `s-${Math.random().toString(36).slice(2, 10)}`);
  return { ...fresh, status: 'running', agent_state: 'idle', ...fields };
}

/** Inserts `sessionRow(fields)` through the sessions store (the product's own INSERT); returns the row. */
export function insertSession(db: Db, fields: Fields): SessionRow {
  const row = sessionRow(fields);
  new SessionStore(db).insert(row);
  return row;
}
