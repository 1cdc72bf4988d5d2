import type { Migration } from './types';

/**
 * Secrets core keeps for itself (a workspace's fleet secret) when the OS keychain does not answer:
 * sealed with the vault's data key like `secrets`, bound to their (service, account) name, resealed
 * at every key rotation. Never listed by an operation; an entry here is newer than the keychain's.
 */
export const migration025: Migration = {
  version: 25,
  name: 'core_secrets',
  up(db) {
    db.exec(`
      CREATE TABLE core_secrets (
        service TEXT NOT NULL,
        account TEXT NOT NULL,
        dek_term INTEGER NOT NULL CHECK (dek_term >= 1),
        sealed_value BLOB NOT NULL CHECK (length(sealed_value) > 33),
        updated_at TEXT NOT NULL,
        PRIMARY KEY (service, account)
      );
    `);
  },
};
