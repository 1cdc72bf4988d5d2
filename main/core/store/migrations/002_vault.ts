import type { Migration } from './types';

/**
 * Vault: one row of metadata (current data-key term, keychain account), one row per principal
 * holding its own wrapped copy of the data key, and the sealed secrets. No plaintext value and no
 * unwrapped key is ever stored; `last4` is the only part of a value kept in clear.
 */
export const migration002: Migration = {
  version: 2,
  name: 'vault',
  up(db) {
    db.exec(`
      CREATE TABLE vault_meta (
        id INTEGER PRIMARY KEY CHECK (id = 1),
        vault_id TEXT NOT NULL,
        keychain_account TEXT NOT NULL,
        dek_term INTEGER NOT NULL CHECK (dek_term >= 1),
        created_at TEXT NOT NULL,
        rotated_at TEXT
      );
      CREATE TABLE vault_principals (
        id TEXT PRIMARY KEY,
        kind TEXT NOT NULL CHECK (kind IN ('operator', 'recovery', 'machine')),
        public_key BLOB NOT NULL,
        sealed_private_key BLOB NOT NULL,
        kek_params TEXT NOT NULL,
        dek_term INTEGER NOT NULL,
        wrapped_dek BLOB NOT NULL,
        dek_ephemeral_key BLOB NOT NULL,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL
      );
      CREATE TABLE secrets (
        id TEXT PRIMARY KEY,
        name TEXT NOT NULL UNIQUE,
        kind TEXT NOT NULL CHECK (kind IN ('github', 'gitlab', 'generic')),
        host TEXT NOT NULL,
        last4 TEXT NOT NULL,
        dek_term INTEGER NOT NULL,
        sealed_value BLOB NOT NULL,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL
      );
    `);
  },
};
