import type { Migration } from './types';

/**
 * Remote connectors (docs/remote.md): Nexus as its own OAuth authorization server for the public origin.
 * - `oauth_entries`: what the authorization server (oidc-provider) stores — clients, interactions,
 *   codes, access and refresh tokens, grants — keyed by the SHA-256 of the id, so a token or code is
 *   never on disk (its value is its id); `expires_at` in epoch seconds, NULL for no expiry.
 * - `oauth_pending`: authorization requests waiting for the operator, with the short code the public
 *   page shows.
 * - `oauth_grants`: what the operator approved: client, class (read or write, never vault), times.
 * - `remote_settings`: the public origin chosen in Settings → Access.
 */
export const migration020: Migration = {
  version: 20,
  name: 'remote',
  up(db) {
    db.exec(`
      CREATE TABLE oauth_entries (
        model TEXT NOT NULL,
        id_hash BLOB NOT NULL CHECK (length(id_hash) = 32),
        payload TEXT NOT NULL,
        grant_id TEXT,
        uid TEXT,
        expires_at INTEGER,
        PRIMARY KEY (model, id_hash)
      );
      CREATE INDEX oauth_entries_grant ON oauth_entries (grant_id);
      CREATE TABLE oauth_pending (
        uid TEXT PRIMARY KEY,
        client_id TEXT NOT NULL,
        client_name TEXT NOT NULL,
        redirect_uri TEXT NOT NULL,
        code TEXT NOT NULL,
        class_asked TEXT NOT NULL CHECK (class_asked IN ('read', 'write')),
        scope TEXT NOT NULL,
        created_at TEXT NOT NULL,
        expires_at TEXT NOT NULL,
        decision TEXT CHECK (decision IN ('approved', 'denied')),
        class TEXT CHECK (class IN ('read', 'write')),
        grant_id TEXT
      );
      CREATE TABLE oauth_grants (
        id TEXT PRIMARY KEY,
        client_id TEXT NOT NULL,
        client_name TEXT NOT NULL,
        redirect_uri TEXT NOT NULL,
        class TEXT NOT NULL CHECK (class IN ('read', 'write')),
        resource TEXT NOT NULL,
        created_at TEXT NOT NULL,
        last_used_at TEXT,
        revoked_at TEXT
      );
      CREATE TABLE remote_settings (
        key TEXT PRIMARY KEY,
        value TEXT NOT NULL
      );
    `);
  },
};
