import { randomUUID } from 'node:crypto';
import { SessionStore } from '../sessions';
import type { Db } from '../store';
import { WorkspaceStore } from '../workspaces';

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
  /** The workspaces' and sessions' own stores answer what placement asks of their tables. */
  private readonly workspaces: WorkspaceStore;
  private readonly sessions: SessionStore;

  constructor(private readonly db: Db) {
    this.workspaces = new WorkspaceStore(db);
    this.sessions = new SessionStore(db);
  }

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

  /** Workspaces per engine id: all of them, and the running ones. */
  workspaceCounts(): Map<string, { all: number; running: number }> {
    return this.workspaces.countsByEngine();
  }

  /** Live sessions (creating or running) per engine id, for placement. */
  runningSessionsByEngine(): Map<string, number> {
    const engines = this.workspaces.engines();
    const counts = new Map<string, number>();
    for (const [workspaceId, n] of this.sessions.liveByWorkspace()) {
      const engine = engines.get(workspaceId);
      if (engine !== undefined) counts.set(engine, (counts.get(engine) ?? 0) + n);
    }
    return counts;
  }
}
