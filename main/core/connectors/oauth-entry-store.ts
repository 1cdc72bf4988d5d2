import type { Db } from '../store';

/** A stored entry's payload (JSON) and when it expires (epoch seconds; null: never). */
export interface EntryRow {
  payload: string;
  expires_at: number | null;
}

/** The authorization server's rows (`oauth_entries`), each keyed by its model and the SHA-256 of its id. */
export class OAuthEntryStore {
  private readonly keptClient;
  private readonly upsertEntry;
  private readonly byHash;
  private readonly byUid;
  private readonly setPayload;
  private readonly deleteByHash;
  private readonly deleteOfGrant;
  private readonly deleteGrant;
  private readonly keep;
  private readonly deleteExpired;
  private readonly preregistered;

  constructor(db: Db) {
    this.keptClient = db.prepare(
      "SELECT 1 FROM oauth_entries WHERE model = 'Client' AND id_hash = ? AND expires_at IS NULL",
    );
    this.upsertEntry = db.prepare(
      'INSERT INTO oauth_entries (model, id_hash, payload, grant_id, uid, expires_at) VALUES (?, ?, ?, ?, ?, ?) ' +
        'ON CONFLICT (model, id_hash) DO UPDATE SET payload = excluded.payload, grant_id = excluded.grant_id, ' +
        'uid = excluded.uid, expires_at = excluded.expires_at',
    );
    this.byHash = db.prepare('SELECT payload, expires_at FROM oauth_entries WHERE model = ? AND id_hash = ?');
    this.byUid = db.prepare('SELECT payload, expires_at FROM oauth_entries WHERE model = ? AND uid = ?');
    this.setPayload = db.prepare('UPDATE oauth_entries SET payload = ? WHERE model = ? AND id_hash = ?');
    this.deleteByHash = db.prepare('DELETE FROM oauth_entries WHERE model = ? AND id_hash = ?');
    this.deleteOfGrant = db.prepare('DELETE FROM oauth_entries WHERE grant_id = ?');
    this.deleteGrant = db.prepare("DELETE FROM oauth_entries WHERE model = 'Grant' AND id_hash = ?");
    this.keep = db.prepare("UPDATE oauth_entries SET expires_at = NULL WHERE model = 'Client' AND id_hash = ?");
    this.deleteExpired = db.prepare('DELETE FROM oauth_entries WHERE expires_at IS NOT NULL AND expires_at <= ?');
    this.preregistered = db.prepare(
      "SELECT payload FROM oauth_entries WHERE model = 'Client' AND json_extract(payload, '$.nexus_preregistered') IS NOT NULL",
    );
  }

  /** Whether the client is stored and kept (it does not expire). */
  isKeptClient(idHash: Buffer): boolean {
    return this.keptClient.get(idHash) !== undefined;
  }

  put(
    model: string,
    idHash: Buffer,
    payload: string,
    grantId: string | null,
    uid: string | null,
    expiresAt: number | null,
  ): void {
    this.upsertEntry.run(model, idHash, payload, grantId, uid, expiresAt);
  }

  get(model: string, idHash: Buffer): EntryRow | undefined {
    return this.byHash.get(model, idHash) as EntryRow | undefined;
  }

  getByUid(model: string, uid: string): EntryRow | undefined {
    return this.byUid.get(model, uid) as EntryRow | undefined;
  }

  replacePayload(model: string, idHash: Buffer, payload: string): void {
    this.setPayload.run(payload, model, idHash);
  }

  delete(model: string, idHash: Buffer): void {
    this.deleteByHash.run(model, idHash);
  }

  /** Deletes a grant (by its id's hash) and every entry issued under it. */
  deleteGrantAndIssued(grantId: string, grantHash: Buffer): void {
    this.deleteOfGrant.run(grantId);
    this.deleteGrant.run(grantHash);
  }

  keepClient(idHash: Buffer): void {
    this.keep.run(idHash);
  }

  deleteExpiredAt(epochSeconds: number): void {
    this.deleteExpired.run(epochSeconds);
  }

  /** The payloads of the clients the operator made (marked `nexus_preregistered`). */
  preregisteredClients(): string[] {
    return (this.preregistered.all() as { payload: string }[]).map((r) => r.payload);
  }
}
