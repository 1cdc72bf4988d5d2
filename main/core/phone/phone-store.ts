import { createHash, randomUUID } from 'node:crypto';
import type { PhoneDevice } from '../../../shared/contract';
import type { Db } from '../store';
import { PublicOriginStore } from '../connectors';

export interface DeviceRow {
  id: string;
  name: string;
  credential_id: string;
  public_key: Buffer;
  counter: number;
  transports: string;
  rp_id: string;
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
}

interface InviteRow {
  name: string;
  origin: string;
  expires_at: string;
  used_at: string | null;
}

export interface PhoneSessionRow {
  device_id: string;
  origin: string;
  expires_at: string;
}

export const sha256 = (s: string): Buffer => createHash('sha256').update(s).digest();

/** The phone's rows: devices (passkeys), one-time invites and sessions, the secrets among them hashed. */
export class PhoneStore {
  private readonly settings: PublicOriginStore;

  constructor(
    private readonly db: Db,
    private readonly now: () => Date = () => new Date(),
  ) {
    this.settings = new PublicOriginStore(db);
  }

  private iso = (): string => this.now().toISOString();

  getSetting(key: string): string | null {
    return this.settings.get(key);
  }

  setSetting(key: string, value: string | null): void {
    this.settings.set(key, value);
  }

  addInvite(token: string, name: string, origin: string, expiresAt: Date): void {
    this.db
      .prepare('INSERT INTO phone_invites (token_hash, name, origin, created_at, expires_at) VALUES (?, ?, ?, ?, ?)')
      .run(sha256(token), name, origin, this.iso(), expiresAt.toISOString());
  }

  /** The invite a token names, if it is unused, unexpired and made for this origin (not consumed). */
  invite(token: string, origin: string): InviteRow | null {
    const row = this.db
      .prepare('SELECT name, origin, expires_at, used_at FROM phone_invites WHERE token_hash = ?')
      .get(sha256(token)) as InviteRow | undefined;
    if (!row || row.used_at !== null || row.origin !== origin) return null;
    return Date.parse(row.expires_at) > this.now().getTime() ? row : null;
  }

  /** Uses the invite once: true for the one caller that consumed it. */
  consumeInvite(token: string): boolean {
    return (
      this.db
        .prepare('UPDATE phone_invites SET used_at = ? WHERE token_hash = ? AND used_at IS NULL')
        .run(this.iso(), sha256(token)).changes === 1
    );
  }

  addDevice(d: {
    name: string;
    credentialId: string;
    publicKey: Uint8Array;
    counter: number;
    transports: string[];
    rpId: string;
  }): string {
    const id = randomUUID();
    this.db
      .prepare(
        'INSERT INTO phone_devices (id, name, credential_id, public_key, counter, transports, rp_id, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
      )
      .run(
        id,
        d.name,
        d.credentialId,
        Buffer.from(d.publicKey),
        d.counter,
        JSON.stringify(d.transports),
        d.rpId,
        this.iso(),
      );
    return id;
  }

  deviceRow(id: string): DeviceRow | null {
    return (this.db.prepare('SELECT * FROM phone_devices WHERE id = ?').get(id) as DeviceRow | undefined) ?? null;
  }

  deviceByCredential(credentialId: string): DeviceRow | null {
    return (
      (this.db.prepare('SELECT * FROM phone_devices WHERE credential_id = ?').get(credentialId) as
        DeviceRow | undefined) ?? null
    );
  }

  /** Devices that may sign in on this relying party. */
  activeDevices(rpId: string): DeviceRow[] {
    return this.db
      .prepare('SELECT * FROM phone_devices WHERE revoked_at IS NULL AND rp_id = ? ORDER BY created_at')
      .all(rpId) as DeviceRow[];
  }

  signedIn(id: string, counter: number): void {
    this.db.prepare('UPDATE phone_devices SET counter = ?, last_used_at = ? WHERE id = ?').run(counter, this.iso(), id);
  }

  revokeDevice(id: string): void {
    this.db.prepare('UPDATE phone_devices SET revoked_at = coalesce(revoked_at, ?) WHERE id = ?').run(this.iso(), id);
    this.db.prepare('DELETE FROM phone_sessions WHERE device_id = ?').run(id);
  }

  devices(): PhoneDevice[] {
    const rows = this.db
      .prepare(
        `SELECT d.*, (SELECT count(*) FROM phone_sessions s WHERE s.device_id = d.id AND s.expires_at > ?) AS active
         FROM phone_devices d ORDER BY d.created_at DESC`,
      )
      .all(this.iso()) as (DeviceRow & { active: number })[];
    return rows.map((r) => ({
      id: r.id,
      name: r.name,
      createdAt: r.created_at,
      lastUsedAt: r.last_used_at,
      revokedAt: r.revoked_at,
      activeSessions: r.active,
    }));
  }

  addSession(secret: string, deviceId: string, origin: string, expiresAt: Date): void {
    this.db
      .prepare('INSERT INTO phone_sessions (id_hash, device_id, origin, created_at, expires_at) VALUES (?, ?, ?, ?, ?)')
      .run(sha256(secret), deviceId, origin, this.iso(), expiresAt.toISOString());
  }

  session(secret: string): PhoneSessionRow | null {
    const row = this.db
      .prepare('SELECT device_id, origin, expires_at FROM phone_sessions WHERE id_hash = ?')
      .get(sha256(secret)) as PhoneSessionRow | undefined;
    return row && Date.parse(row.expires_at) > this.now().getTime() ? row : null;
  }

  endSession(secret: string): void {
    this.db.prepare('DELETE FROM phone_sessions WHERE id_hash = ?').run(sha256(secret));
  }

  endAllSessions(): void {
    this.db.prepare('DELETE FROM phone_sessions').run();
  }

  sweep(): void {
    const now = this.iso();
    this.db.prepare('DELETE FROM phone_sessions WHERE expires_at <= ?').run(now);
    this.db.prepare('DELETE FROM phone_invites WHERE expires_at <= ?').run(now);
  }

  /** Saves a phone's push subscription (a known endpoint moves to this device and its keys). */
  savePushSubscription(deviceId: string, endpoint: string, p256dh: string, auth: string): void {
    this.db
      .prepare(
        `INSERT INTO phone_push (endpoint, device_id, p256dh, auth, created_at) VALUES (?, ?, ?, ?, ?)
         ON CONFLICT (endpoint) DO UPDATE SET device_id = excluded.device_id, p256dh = excluded.p256dh, auth = excluded.auth`,
      )
      .run(endpoint, deviceId, p256dh, auth, this.iso());
  }

  pushSubscriptions(): { endpoint: string; p256dh: string; auth: string }[] {
    return this.db.prepare('SELECT endpoint, p256dh, auth FROM phone_push').all() as {
      endpoint: string;
      p256dh: string;
      auth: string;
    }[];
  }

  forgetPushOf(deviceId: string): void {
    this.db.prepare('DELETE FROM phone_push WHERE device_id = ?').run(deviceId);
  }

  forgetPushEndpoint(endpoint: string): void {
    this.db.prepare('DELETE FROM phone_push WHERE endpoint = ?').run(endpoint);
  }

  forgetAllPush(): void {
    this.db.prepare('DELETE FROM phone_push').run();
  }
}
