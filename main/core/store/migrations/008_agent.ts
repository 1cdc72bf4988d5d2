import type { Migration } from './types';

/**
 * The agent: secrets may hold an Anthropic API key or a Claude OAuth token (the secrets
 * table is rebuilt to widen its kind check; SQLite cannot alter a CHECK), each workspace may name
 * its own agent credential and run its sessions in bypassPermissions, and one row holds the default
 * agent credential that Settings → Agent picks.
 */
export const migration008: Migration = {
  version: 8,
  name: 'agent',
  up(db) {
    db.exec(`
      CREATE TABLE secrets_008 (
        id TEXT PRIMARY KEY,
        name TEXT NOT NULL UNIQUE,
        kind TEXT NOT NULL CHECK (kind IN ('github', 'gitlab', 'generic', 'anthropic_api_key', 'claude_oauth_token')),
        host TEXT NOT NULL,
        last4 TEXT NOT NULL,
        dek_term INTEGER NOT NULL,
        sealed_value BLOB NOT NULL,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL
      );
      INSERT INTO secrets_008 SELECT id, name, kind, host, last4, dek_term, sealed_value, created_at, updated_at FROM secrets;
      DROP TABLE secrets;
      ALTER TABLE secrets_008 RENAME TO secrets;
      ALTER TABLE workspaces ADD COLUMN agent_secret_id TEXT;
      ALTER TABLE workspaces ADD COLUMN bypass_permissions INTEGER NOT NULL DEFAULT 0 CHECK (bypass_permissions IN (0, 1));
      CREATE TABLE agent_settings (
        id INTEGER PRIMARY KEY CHECK (id = 1),
        default_secret_id TEXT,
        updated_at TEXT NOT NULL
      );
    `);
  },
};
