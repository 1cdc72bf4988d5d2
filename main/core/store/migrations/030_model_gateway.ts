import type { Migration } from './types';

/**
 * The model gateway (docs/gateway.md):
 * - `gateway_credentials`: each session's gateway credential, by its SHA-256 only; it goes with its session;
 * - `model_usage`: the ledger, one row per model answer that reported tokens, keyed by the gateway's own id for the
 *   request (a crash between the answer and the write loses that row at most; a row is never written twice);
 * - `model_budgets`: token caps per session, per workspace and per day (scope_id '' for the day cap).
 */
export const migration030: Migration = {
  version: 30,
  name: 'model_gateway',
  up(db) {
    db.exec(`
      CREATE TABLE gateway_credentials (
        hash TEXT PRIMARY KEY,
        session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
        workspace_id TEXT NOT NULL,
        agent TEXT NOT NULL,
        created_at TEXT NOT NULL
      );
      CREATE INDEX gateway_credentials_session ON gateway_credentials(session_id);
      CREATE TABLE model_usage (
        request_id TEXT PRIMARY KEY,
        session_id TEXT NOT NULL,
        workspace_id TEXT NOT NULL,
        agent TEXT NOT NULL,
        task_id TEXT,
        day TEXT NOT NULL,
        model TEXT,
        input_tokens INTEGER NOT NULL CHECK (input_tokens >= 0),
        output_tokens INTEGER NOT NULL CHECK (output_tokens >= 0),
        cache_write_tokens INTEGER NOT NULL CHECK (cache_write_tokens >= 0),
        cache_read_tokens INTEGER NOT NULL CHECK (cache_read_tokens >= 0),
        at TEXT NOT NULL
      );
      CREATE INDEX model_usage_session ON model_usage(session_id);
      CREATE INDEX model_usage_workspace ON model_usage(workspace_id, day);
      CREATE INDEX model_usage_day ON model_usage(day);
      CREATE TABLE model_budgets (
        scope TEXT NOT NULL CHECK (scope IN ('session', 'workspace', 'day')),
        scope_id TEXT NOT NULL,
        max_tokens INTEGER NOT NULL CHECK (max_tokens > 0),
        updated_at TEXT NOT NULL,
        PRIMARY KEY (scope, scope_id)
      );
    `);
  },
};
