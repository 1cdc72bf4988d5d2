import type { Migration } from './types';

/**
 * Agent kinds as drivers (docs/agents.md): a kind is whatever core's agent registry holds, so the tables stop naming
 * the kinds (migration 023's CHECKs would make every new kind a table rebuild), and credentials are one row per kind:
 * - `agent_credentials(kind, secret_id)`: the default credential of each kind, from agent_settings' two columns
 *   (`default_secret_id` was the first kind's, `codex_secret_id` the second's); agent_settings is dropped;
 * - `sessions.agent` and `workspace_agent_defaults.agent` lose their CHECK (core refuses a kind it has no driver for).
 */
export const migration026: Migration = {
  version: 26,
  name: 'agent_kinds_open',
  up(db) {
    db.exec(`
      CREATE TABLE agent_credentials (
        kind TEXT PRIMARY KEY,
        secret_id TEXT NOT NULL,
        updated_at TEXT NOT NULL
      );
      INSERT INTO agent_credentials (kind, secret_id, updated_at)
        SELECT 'claude', default_secret_id, updated_at FROM agent_settings WHERE default_secret_id IS NOT NULL;
      INSERT INTO agent_credentials (kind, secret_id, updated_at)
        SELECT 'codex', codex_secret_id, updated_at FROM agent_settings WHERE codex_secret_id IS NOT NULL;
      DROP TABLE agent_settings;

      ALTER TABLE sessions RENAME COLUMN agent TO agent_023;
      ALTER TABLE sessions ADD COLUMN agent TEXT NOT NULL DEFAULT 'claude';
      UPDATE sessions SET agent = agent_023;
      ALTER TABLE sessions DROP COLUMN agent_023;

      CREATE TABLE workspace_agent_defaults_026 (
        workspace_id TEXT PRIMARY KEY REFERENCES workspaces(id) ON DELETE CASCADE,
        agent TEXT NOT NULL,
        updated_at TEXT NOT NULL
      );
      INSERT INTO workspace_agent_defaults_026 SELECT workspace_id, agent, updated_at FROM workspace_agent_defaults;
      DROP TABLE workspace_agent_defaults;
      ALTER TABLE workspace_agent_defaults_026 RENAME TO workspace_agent_defaults;
    `);
  },
};
