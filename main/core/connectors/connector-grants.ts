import { randomInt } from 'node:crypto';
import type { RemoteClass, RemoteGrant, RemotePending } from '../../../shared/contract';
import type { Db } from '../store';
import { ConnectorGrantStore, type GrantRow, type PendingRow } from './connector-grant-store';
import { PublicOriginStore } from './public-origin-store';

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
  private readonly store: ConnectorGrantStore;
  private readonly settings: PublicOriginStore;

  constructor(
    db: Db,
    private readonly now: () => Date = () => new Date(),
  ) {
    this.store = new ConnectorGrantStore(db);
    this.settings = new PublicOriginStore(db);
  }

  /**
   * The pending row for an interaction, made on first sight (its code stays the same on every poll);
   * null when MAX_PENDING requests are already waiting.
   */
  ensurePending(req: PendingRequest): PendingRow | null {
    const existing = this.store.pending(req.uid);
    if (existing) return existing;
    if (this.pending().length >= MAX_PENDING) return null;
    this.store.addPending({
      uid: req.uid,
      client_id: req.clientId,
      client_name: req.clientName,
      redirect_uri: req.redirectUri,
      code: shortCode(),
      class_asked: req.classAsked,
      scope: req.scope,
      created_at: this.now().toISOString(),
      expires_at: req.expiresAt.toISOString(),
    });
    return this.store.pending(req.uid) as PendingRow;
  }

  pendingRow(uid: string): PendingRow | null {
    return this.store.pending(uid);
  }

  /** Requests still waiting for the operator and not expired, oldest first. */
  pending(): RemotePending[] {
    const rows = this.store.waitingAt(this.now().toISOString());
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
    this.store.decide(uid, decision, cls, grantId);
  }

  /** Forgets a request once its page has carried the decision back (or it expired). */
  settle(uid: string): void {
    this.store.forgetPending(uid);
  }

  sweep(): void {
    this.store.forgetExpiredAt(this.now().toISOString());
  }

  addGrant(id: string, p: PendingRow, cls: RemoteClass, resource: string): RemoteGrant {
    this.store.addGrant({
      id,
      client_id: p.client_id,
      client_name: p.client_name,
      redirect_uri: p.redirect_uri,
      class: cls,
      resource,
      created_at: this.now().toISOString(),
    });
    return this.grant(id) as RemoteGrant;
  }

  grantRow(id: string): GrantRow | null {
    return this.store.grant(id);
  }

  grant(id: string): RemoteGrant | null {
    const row = this.grantRow(id);
    return row ? this.info(row) : null;
  }

  grants(): RemoteGrant[] {
    return this.store.grants().map((r) => this.info(r));
  }

  revoke(id: string): void {
    this.store.revoke(id, this.now().toISOString());
  }

  /** The grants of one client that are not revoked. */
  activeGrantIdsOf(clientId: string): string[] {
    return this.store.activeGrantIdsOf(clientId);
  }

  /** Records a use, at most once a minute per grant. */
  touch(row: GrantRow): void {
    const now = this.now();
    if (row.last_used_at !== null && now.getTime() - Date.parse(row.last_used_at) < LAST_USED_RESOLUTION_MS) return;
    this.store.used(row.id, now.toISOString());
  }

  getSetting(key: string): string | null {
    return this.settings.get(key);
  }

  setSetting(key: string, value: string | null): void {
    this.settings.set(key, value);
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
