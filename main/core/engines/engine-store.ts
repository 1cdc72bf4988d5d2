import { randomUUID } from 'node:crypto';
import type { Db } from '../store';

export interface EngineRecord {
  id: string;
  name: string;
  kind: 'ssh' | 'tls';
  url: string;
  keySecretId: string | null;
  caSecretId: string | null;
  certSecretId: string | null;
  tlsKeySecretId: string | null;
  /** The host key offered at first contact (pending) or pinned. */
  hostKey: string | null;
  hostKeyPinned: boolean;
  createdAt: string;
}

interface Row {
  id: string;
  name: string;
  kind: 'ssh' | 'tls';
  url: string;
  key_secret_id: string | null;
  ca_secret_id: string | null;
  cert_secret_id: string | null;
  tls_key_secret_id: string | null;
  host_key: string | null;
  host_key_pinned: number;
  created_at: string;
}

const toRecord = (r: Row): EngineRecord => ({
  id: r.id,
  name: r.name,
  kind: r.kind,
  url: r.url,
  keySecretId: r.key_secret_id,
  caSecretId: r.ca_secret_id,
  certSecretId: r.cert_secret_id,
  tlsKeySecretId: r.tls_key_secret_id,
  hostKey: r.host_key,
  hostKeyPinned: r.host_key_pinned === 1,
  createdAt: r.created_at,
});

/** The engines table: remote engines only (the local engine is not a row). */
export class EngineStore {
  constructor(private readonly db: Db) {}

  list(): EngineRecord[] {
    return (this.db.prepare('SELECT * FROM engines ORDER BY created_at, name').all() as Row[]).map(toRecord);
  }

  /** By id or name. */
  find(ref: string): EngineRecord | null {
    const row = this.db.prepare('SELECT * FROM engines WHERE id = ? OR name = ? LIMIT 1').get(ref, ref) as
      Row | undefined;
    return row ? toRecord(row) : null;
  }

  insert(e: Omit<EngineRecord, 'id' | 'createdAt' | 'hostKeyPinned'>): EngineRecord {
    const id = randomUUID();
    this.db
      .prepare(
        `INSERT INTO engines (id, name, kind, url, key_secret_id, ca_secret_id, cert_secret_id, tls_key_secret_id,
           host_key, host_key_pinned, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 0, ?)`,
      )
      .run(
        id,
        e.name,
        e.kind,
        e.url,
        e.keySecretId,
        e.caSecretId,
        e.certSecretId,
        e.tlsKeySecretId,
        e.hostKey,
        new Date().toISOString(),
      );
    return this.find(id) as EngineRecord;
  }

  pinHostKey(id: string, hostKey: string): EngineRecord {
    this.db.prepare('UPDATE engines SET host_key = ?, host_key_pinned = 1 WHERE id = ?').run(hostKey, id);
    return this.find(id) as EngineRecord;
  }

  delete(id: string): void {
    this.db.prepare('DELETE FROM engines WHERE id = ?').run(id);
  }

  /** Workspaces per engine id (a read of the workspaces table): all of them, and the running ones. */
  workspaceCounts(): Map<string, { all: number; running: number }> {
    const rows = this.db
      .prepare(
        "SELECT engine, COUNT(*) AS n, SUM(CASE WHEN status = 'running' THEN 1 ELSE 0 END) AS r FROM workspaces GROUP BY engine",
      )
      .all() as { engine: string; n: number; r: number }[];
    return new Map(rows.map((x) => [x.engine, { all: x.n, running: x.r }]));
  }

  /** Running sessions per engine id (a read of the sessions and workspaces tables), for placement. */
  runningSessionsByEngine(): Map<string, number> {
    const rows = this.db
      .prepare(
        `SELECT w.engine AS engine, COUNT(*) AS n FROM sessions s JOIN workspaces w ON w.id = s.workspace_id
         WHERE s.status IN ('creating', 'running') GROUP BY w.engine`,
      )
      .all() as { engine: string; n: number }[];
    return new Map(rows.map((x) => [x.engine, x.n]));
  }
}
