import type { Migration } from './types';

/**
 * Engines (docs/engines.md): remote Docker engines as records, a workspace lives on one of them, and the
 * secrets table is rebuilt to widen its kind check (SQLite cannot alter a CHECK) for an SSH private
 * key and TLS material (PEM). `local` is the engine core starts with: a workspace row says `local`
 * until it is placed elsewhere; the local engine itself has no row.
 */
export const migration021: Migration = {
  version: 21,
  name: 'engines',
  up(db) {
    db.exec(`
      CREATE TABLE secrets_021 (
        id TEXT PRIMARY KEY,
        name TEXT NOT NULL UNIQUE,
        kind TEXT NOT NULL CHECK (kind IN ('github', 'gitlab', 'generic', 'anthropic_api_key', 'claude_oauth_token',
          'ssh_private_key', 'tls_certificate', 'tls_private_key')),
        host TEXT NOT NULL,
        last4 TEXT NOT NULL,
        dek_term INTEGER NOT NULL,
        sealed_value BLOB NOT NULL,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL
      );
      INSERT INTO secrets_021 SELECT id, name, kind, host, last4, dek_term, sealed_value, created_at, updated_at FROM secrets;
      DROP TABLE secrets;
      ALTER TABLE secrets_021 RENAME TO secrets;
      CREATE TABLE engines (
        id TEXT PRIMARY KEY,
        name TEXT NOT NULL UNIQUE,
        kind TEXT NOT NULL CHECK (kind IN ('ssh', 'tls')),
        url TEXT NOT NULL,
        key_secret_id TEXT,
        ca_secret_id TEXT,
        cert_secret_id TEXT,
        tls_key_secret_id TEXT,
        host_key TEXT,
        host_key_pinned INTEGER NOT NULL DEFAULT 0 CHECK (host_key_pinned IN (0, 1)),
        created_at TEXT NOT NULL
      );
      ALTER TABLE workspaces ADD COLUMN engine TEXT NOT NULL DEFAULT 'local';
    `);
  },
};
