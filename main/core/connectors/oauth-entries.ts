import { createHash } from 'node:crypto';
import type { Db } from '../store';
import { OAuthEntryStore } from './oauth-entry-store';

/**
 * Models whose payload keeps its id: a client (its id is public), and the authorization server's
 * login session (it must be found by uid; alone it grants nothing, since every authorization needs
 * the operator's approval, and it lives 60 seconds).
 */
const KEEPS_ID = new Set(['Client', 'Session']);

/** How long a client registered by dynamic registration lives without an approved grant. */
export const UNAPPROVED_CLIENT_SECONDS = 3600;

type Payload = Record<string, unknown> & { jti?: string; grantId?: string; uid?: string; consumed?: number };

const epoch = (now: () => Date): number => Math.floor(now().getTime() / 1000);
export const idHash = (id: string): Buffer => createHash('sha256').update(id, 'utf8').digest();

/**
 * The authorization server's storage (an oidc-provider adapter) on the app database. Every row is
 * keyed by the SHA-256 of its id, and the id itself (`jti`) is dropped from the stored payload and
 * put back from the id presented on lookup — so an access token, refresh token, code or session id,
 * whose value *is* its id, is never written to disk. A dynamically registered client expires after
 * an hour unless the operator approved a grant for it (`keepClient`).
 */
export class OAuthEntries {
  readonly store: OAuthEntryStore;

  constructor(
    db: Db,
    private readonly now: () => Date = () => new Date(),
  ) {
    this.store = new OAuthEntryStore(db);
  }

  /** The adapter class oidc-provider instantiates once per model name. */
  adapter(): new (model: string) => OAuthAdapter {
    return adapterOn(this);
  }

  async upsert(model: string, id: string, payload: Payload, expiresIn?: number): Promise<void> {
    const { jti: _jti, ...rest } = payload;
    const stored = KEEPS_ID.has(model) ? payload : rest;
    let expires: number | null = expiresIn ? epoch(this.now) + expiresIn : null;
    if (model === 'Client' && expires === null) {
      if (!this.store.isKeptClient(idHash(id))) expires = epoch(this.now) + UNAPPROVED_CLIENT_SECONDS;
    }
    this.store.put(model, idHash(id), JSON.stringify(stored), payload.grantId ?? null, payload.uid ?? null, expires);
    return Promise.resolve();
  }

  find(model: string, id: string): Promise<Payload | undefined> {
    const row = this.store.get(model, idHash(id));
    if (!row || (row.expires_at !== null && row.expires_at <= epoch(this.now))) return Promise.resolve(undefined);
    const payload = JSON.parse(row.payload) as Payload;
    return Promise.resolve(KEEPS_ID.has(model) ? payload : { ...payload, jti: id });
  }

  /** Sessions are looked up by uid when a second authorization comes from the same browser. */
  findByUid(model: string, uid: string): Promise<Payload | undefined> {
    const row = this.store.getByUid(model, uid);
    if (!row || (row.expires_at !== null && row.expires_at <= epoch(this.now))) return Promise.resolve(undefined);
    return Promise.resolve(JSON.parse(row.payload) as Payload);
  }

  consume(model: string, id: string): Promise<void> {
    const row = this.store.get(model, idHash(id));
    if (row) {
      const payload = { ...(JSON.parse(row.payload) as Payload), consumed: epoch(this.now) };
      this.store.replacePayload(model, idHash(id), JSON.stringify(payload));
    }
    return Promise.resolve();
  }

  destroy(model: string, id: string): Promise<void> {
    this.store.delete(model, idHash(id));
    return Promise.resolve();
  }

  /** Deletes the grant and every code and token issued under it. */
  revokeByGrantId(grantId: string): Promise<void> {
    this.store.deleteGrantAndIssued(grantId, idHash(grantId));
    return Promise.resolve();
  }

  /** An approved client no longer expires. */
  keepClient(clientId: string): void {
    this.store.keepClient(idHash(clientId));
  }

  /** Drops every expired row (run now and then; lookups already ignore them). */
  sweep(): void {
    this.store.deleteExpiredAt(epoch(this.now));
  }
}

export interface OAuthAdapter {
  upsert(id: string, payload: Payload, expiresIn?: number): Promise<void>;
  find(id: string): Promise<Payload | undefined>;
  findByUid(uid: string): Promise<Payload | undefined>;
  findByUserCode(code: string): Promise<Payload | undefined>;
  consume(id: string): Promise<void>;
  destroy(id: string): Promise<void>;
  revokeByGrantId(grantId: string): Promise<void>;
}

function adapterOn(entries: OAuthEntries): new (model: string) => OAuthAdapter {
  return class {
    constructor(private readonly model: string) {}
    upsert = (id: string, payload: Payload, expiresIn?: number) => entries.upsert(this.model, id, payload, expiresIn);
    find = (id: string) => entries.find(this.model, id);
    findByUid = (uid: string) => entries.findByUid(this.model, uid);
    findByUserCode = () => Promise.resolve(undefined);
    consume = (id: string) => entries.consume(this.model, id);
    destroy = (id: string) => entries.destroy(this.model, id);
    revokeByGrantId = (grantId: string) => entries.revokeByGrantId(grantId);
  };
}
