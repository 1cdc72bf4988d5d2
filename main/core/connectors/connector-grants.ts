import { randomInt } from 'node:crypto';
import type { RemoteClass, RemoteGrant, RemotePending } from '../../../shared/contract';
import type { Db } from '../store';
import { PublicOriginSettings } from './public-origin-settings';

interface PendingRow {
  uid: string;
  client_id: string;
  client_name: string;
  redirect_uri: string;
  code: string;
  class_asked: RemoteClass;
  scope: string;
  created_at: string;
  expires_at: string;
  decision: 'approved' | 'denied' | null;
  class: RemoteClass | null;
  grant_id: string | null;
}

interface GrantRow {
  id: string;
  client_id: string;
  client_name: string;
  redirect_uri: string;
  class: RemoteClass;
  resource: string;
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
}

/** Letters and digits that cannot be confused on a phone screen (no 0/O, 1/I/L). */
const CODE_ALPHABET = 'ABCDEFGHJKMNPQRSTUVWXYZ23456789';
const shortCode = (): string => {
  const pick = (): string => CODE_ALPHABET[randomInt(CODE_ALPHABET.length)] ?? 'X';
  return `${pick()}${pick()}${pick()}${pick()}-${pick()}${pick()}${pick()}${pick()}`;
};
const LAST_USED_RESOLUTION_MS = 60_000;
/** Requests waiting at once: more would only bury the real one under a flood (each expires in 10 minutes). */
export const MAX_PENDING = 5;

export const redirectHostOf = (uri: string): string => {
  try {
    return new URL(uri).host;
  } catch {
    return uri.slice(0, 80);
  }
};

/** A waiting authorization request as the authorization server hands it over. */
export interface PendingRequest {
  uid: string;
  clientId: string;
  clientName: string;
  redirectUri: string;
  classAsked: RemoteClass;
  scope: string;
  expiresAt: Date;
}

/**
 * What the operator decided about connectors: authorization requests waiting for a decision (keyed
 * by the authorization server's interaction id, with the short code the public page shows) and the
 * grants approved, with their class. The tokens themselves live in oauth_entries, hashed.
 */
export class ConnectorGrants {
  constructor(
    private readonly db: Db,
    private readonly now: () => Date = () => new Date(),
  ) {}

  /**
   * The pending row for an interaction, made on first sight (its code stays the same on every poll);
   * null when MAX_PENDING requests are already waiting.
   */
  ensurePending(req: PendingRequest): PendingRow | null {
    const existing = this.db.prepare('SELECT * FROM oauth_pending WHERE uid = ?').get(req.uid) as
      PendingRow | undefined;
    if (existing) return existing;
    if (this.pending().length >= MAX_PENDING) return null;
    this.db
      .prepare(
        'INSERT INTO oauth_pending (uid, client_id, client_name, redirect_uri, code, class_asked, scope, created_at, expires_at) ' +
          'VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)',
      )
      .run(
        req.uid,
        req.clientId,
        req.clientName,
        req.redirectUri,
        shortCode(),
        req.classAsked,
        req.scope,
        this.now().toISOString(),
        req.expiresAt.toISOString(),
      );
    return this.db.prepare('SELECT * FROM oauth_pending WHERE uid = ?').get(req.uid) as PendingRow;
  }

  pendingRow(uid: string): PendingRow | null {
    return (this.db.prepare('SELECT * FROM oauth_pending WHERE uid = ?').get(uid) as PendingRow | undefined) ?? null;
  }

  /** Requests still waiting for the operator and not expired, oldest first. */
  pending(): RemotePending[] {
    const rows = this.db
      .prepare('SELECT * FROM oauth_pending WHERE decision IS NULL AND expires_at > ? ORDER BY created_at, uid')
      .all(this.now().toISOString()) as PendingRow[];
    return rows.map((r) => ({
      id: r.uid,
      clientName: r.client_name,
      redirectHost: redirectHostOf(r.redirect_uri),
      code: r.code,
      classAsked: r.class_asked,
      createdAt: r.created_at,
      expiresAt: r.expires_at,
    }));
  }

  decide(uid: string, decision: 'approved' | 'denied', cls: RemoteClass | null, grantId: string | null): void {
    this.db
      .prepare('UPDATE oauth_pending SET decision = ?, class = ?, grant_id = ? WHERE uid = ?')
      .run(decision, cls, grantId, uid);
  }

  /** Forgets a request once its page has carried the decision back (or it expired). */
  settle(uid: string): void {
    this.db.prepare('DELETE FROM oauth_pending WHERE uid = ?').run(uid);
  }

  sweep(): void {
    this.db.prepare('DELETE FROM oauth_pending WHERE expires_at <= ?').run(this.now().toISOString());
  }

  addGrant(id: string, p: PendingRow, cls: RemoteClass, resource: string): RemoteGrant {
    this.db
      .prepare(
        'INSERT INTO oauth_grants (id, client_id, client_name, redirect_uri, class, resource, created_at) ' +
          'VALUES (?, ?, ?, ?, ?, ?, ?)',
      )
      .run(id, p.client_id, p.client_name, p.redirect_uri, cls, resource, this.now().toISOString());
    return this.grant(id) as RemoteGrant;
  }

  grantRow(id: string): GrantRow | null {
    return (this.db.prepare('SELECT * FROM oauth_grants WHERE id = ?').get(id) as GrantRow | undefined) ?? null;
  }

  grant(id: string): RemoteGrant | null {
    const row = this.grantRow(id);
    return row ? this.info(row) : null;
  }

  grants(): RemoteGrant[] {
    return (this.db.prepare('SELECT * FROM oauth_grants ORDER BY created_at DESC, id').all() as GrantRow[]).map((r) =>
      this.info(r),
    );
  }

  revoke(id: string): void {
    this.db
      .prepare('UPDATE oauth_grants SET revoked_at = coalesce(revoked_at, ?) WHERE id = ?')
      .run(this.now().toISOString(), id);
  }

  /** The grants of one client that are not revoked. */
  activeGrantIdsOf(clientId: string): string[] {
    return (
      this.db.prepare('SELECT id FROM oauth_grants WHERE client_id = ? AND revoked_at IS NULL').all(clientId) as {
        id: string;
      }[]
    ).map((r) => r.id);
  }

  /** Records a use, at most once a minute per grant. */
  touch(row: GrantRow): void {
    const now = this.now();
    if (row.last_used_at !== null && now.getTime() - Date.parse(row.last_used_at) < LAST_USED_RESOLUTION_MS) return;
    this.db.prepare('UPDATE oauth_grants SET last_used_at = ? WHERE id = ?').run(now.toISOString(), row.id);
  }

  getSetting(key: string): string | null {
    return new PublicOriginSettings(this.db).get(key);
  }

  setSetting(key: string, value: string | null): void {
    new PublicOriginSettings(this.db).set(key, value);
  }

  private info(r: GrantRow): RemoteGrant {
    return {
      id: r.id,
      clientName: r.client_name,
      redirectHost: redirectHostOf(r.redirect_uri),
      class: r.class,
      createdAt: r.created_at,
      lastUsedAt: r.last_used_at,
      revokedAt: r.revoked_at,
    };
  }
}

export type { GrantRow, PendingRow };
