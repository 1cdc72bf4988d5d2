import type { RemoteClass } from '../../../shared/contract';
import type { Db } from '../store';

export interface PendingRow {
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

export interface GrantRow {
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

/** A request as first written: the row less the decision the operator has not made yet. */
export type NewPending = Omit<PendingRow, 'decision' | 'class' | 'grant_id'>;

/** The connectors' authorization requests waiting for the operator (`oauth_pending`) and the grants approved (`oauth_grants`). */
export class ConnectorGrantStore {
  private readonly pendingByUid;
  private readonly insertPending;
  private readonly waiting;
  private readonly decidePending;
  private readonly deletePending;
  private readonly deleteExpired;
  private readonly insertGrant;
  private readonly grantById;
  private readonly allGrants;
  private readonly revokeGrant;
  private readonly activeOfClient;
  private readonly markUsed;

  constructor(db: Db) {
    this.pendingByUid = db.prepare('SELECT * FROM oauth_pending WHERE uid = ?');
    this.insertPending = db.prepare(
      'INSERT INTO oauth_pending (uid, client_id, client_name, redirect_uri, code, class_asked, scope, created_at, expires_at) ' +
        'VALUES (@uid, @client_id, @client_name, @redirect_uri, @code, @class_asked, @scope, @created_at, @expires_at)',
    );
    this.waiting = db.prepare(
      'SELECT * FROM oauth_pending WHERE decision IS NULL AND expires_at > ? ORDER BY created_at, uid',
    );
    this.decidePending = db.prepare('UPDATE oauth_pending SET decision = ?, class = ?, grant_id = ? WHERE uid = ?');
    this.deletePending = db.prepare('DELETE FROM oauth_pending WHERE uid = ?');
    this.deleteExpired = db.prepare('DELETE FROM oauth_pending WHERE expires_at <= ?');
    this.insertGrant = db.prepare(
      'INSERT INTO oauth_grants (id, client_id, client_name, redirect_uri, class, resource, created_at) ' +
        'VALUES (?, ?, ?, ?, ?, ?, ?)',
    );
    this.grantById = db.prepare('SELECT * FROM oauth_grants WHERE id = ?');
    this.allGrants = db.prepare('SELECT * FROM oauth_grants ORDER BY created_at DESC, id');
    this.revokeGrant = db.prepare('UPDATE oauth_grants SET revoked_at = coalesce(revoked_at, ?) WHERE id = ?');
    this.activeOfClient = db.prepare('SELECT id FROM oauth_grants WHERE client_id = ? AND revoked_at IS NULL');
    this.markUsed = db.prepare('UPDATE oauth_grants SET last_used_at = ? WHERE id = ?');
  }

  pending(uid: string): PendingRow | null {
    return (this.pendingByUid.get(uid) as PendingRow | undefined) ?? null;
  }

  addPending(row: NewPending): void {
    this.insertPending.run(row);
  }

  /** Requests with no decision that expire after `now`, oldest first. */
  waitingAt(now: string): PendingRow[] {
    return this.waiting.all(now) as PendingRow[];
  }

  decide(uid: string, decision: 'approved' | 'denied', cls: RemoteClass | null, grantId: string | null): void {
    this.decidePending.run(decision, cls, grantId, uid);
  }

  forgetPending(uid: string): void {
    this.deletePending.run(uid);
  }

  forgetExpiredAt(now: string): void {
    this.deleteExpired.run(now);
  }

  addGrant(g: Omit<GrantRow, 'last_used_at' | 'revoked_at'>): void {
    this.insertGrant.run(g.id, g.client_id, g.client_name, g.redirect_uri, g.class, g.resource, g.created_at);
  }

  grant(id: string): GrantRow | null {
    return (this.grantById.get(id) as GrantRow | undefined) ?? null;
  }

  /** Every grant, newest first. */
  grants(): GrantRow[] {
    return this.allGrants.all() as GrantRow[];
  }

  /** Revokes a grant; a grant revoked already keeps its first time. */
  revoke(id: string, at: string): void {
    this.revokeGrant.run(at, id);
  }

  activeGrantIdsOf(clientId: string): string[] {
    return (this.activeOfClient.all(clientId) as { id: string }[]).map((r) => r.id);
  }

  used(id: string, at: string): void {
    this.markUsed.run(at, id);
  }
}
