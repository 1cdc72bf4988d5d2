import type { Migration } from './types';

/**
 * MCP tokens: only the SHA-256 of each secret is kept (the secrets are 256-bit random, so a fast
 * hash is enough), with its class, name, times of creation, expiry, revocation and last use.
 */
export const migration006: Migration = {
  version: 6,
  name: 'tokens',
  up(db) {
    db.exec(`
      CREATE TABLE tokens (
        id TEXT PRIMARY KEY,
        name TEXT NOT NULL,
        class TEXT NOT NULL CHECK (class IN ('read', 'write', 'vault')),
        hash BLOB NOT NULL UNIQUE CHECK (length(hash) = 32),
        hint TEXT NOT NULL,
        created_at TEXT NOT NULL,
        expires_at TEXT NOT NULL,
        revoked_at TEXT,
        last_used_at TEXT
      );
    `);
  },
};
