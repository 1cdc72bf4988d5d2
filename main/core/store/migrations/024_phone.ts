import type { Migration } from './types';

/**
 * The operator's phone on the public origin (docs/remote.md).
 * - `phone_devices`: a phone's passkey (WebAuthn credential id, public key, signature counter), named
 *   by the operator, revocable.
 * - `phone_invites`: one-time registration tokens made in the local UI, stored as SHA-256 only.
 * - `phone_sessions`: signed-in phones, by the SHA-256 of the cookie value (the value is never on
 *   disk), bound to the device whose passkey signed in; short-lived.
 * - `phone_push`: a signed-in phone's Web Push subscription (endpoint and its public keys).
 */
export const migration024: Migration = {
  version: 24,
  name: 'phone',
  up(db) {
    db.exec(`
      CREATE TABLE phone_devices (
        id TEXT PRIMARY KEY,
        name TEXT NOT NULL,
        credential_id TEXT NOT NULL UNIQUE,
        public_key BLOB NOT NULL,
        counter INTEGER NOT NULL DEFAULT 0,
        transports TEXT NOT NULL DEFAULT '[]',
        rp_id TEXT NOT NULL,
        created_at TEXT NOT NULL,
        last_used_at TEXT,
        revoked_at TEXT
      );
      CREATE TABLE phone_invites (
        token_hash BLOB PRIMARY KEY CHECK (length(token_hash) = 32),
        name TEXT NOT NULL,
        origin TEXT NOT NULL,
        created_at TEXT NOT NULL,
        expires_at TEXT NOT NULL,
        used_at TEXT
      );
      CREATE TABLE phone_sessions (
        id_hash BLOB PRIMARY KEY CHECK (length(id_hash) = 32),
        device_id TEXT NOT NULL REFERENCES phone_devices (id),
        origin TEXT NOT NULL,
        created_at TEXT NOT NULL,
        expires_at TEXT NOT NULL
      );
      CREATE INDEX phone_sessions_device ON phone_sessions (device_id);
      CREATE TABLE phone_push (
        endpoint TEXT PRIMARY KEY,
        device_id TEXT NOT NULL REFERENCES phone_devices (id),
        p256dh TEXT NOT NULL,
        auth TEXT NOT NULL,
        created_at TEXT NOT NULL
      );
    `);
  },
};
