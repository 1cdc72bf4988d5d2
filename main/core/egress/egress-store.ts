import { createHash, randomBytes } from 'node:crypto';
import type { Db } from '../store';

/** What the proxy refused a workspace. */
export interface EgressRefusal {
  at: string;
  method: string;
  host: string;
  port: number;
  reason: string;
}

/** Refusals kept per workspace: the newest; a loop of refused requests cannot fill the disk. */
export const REFUSALS_KEPT = 200;

/** A proxy credential's shape: `nxe_` and 256 random bits (base64url). */
const PROXY_CREDENTIAL = /^nxe_[A-Za-z0-9_-]{43}$/;
const hashOf = (credential: string): string => createHash('sha256').update(credential, 'utf8').digest('hex');

/** A workspace's egress rule and its refusals (migration 035), and its proxy credential's hash (037). */
export class EgressStore {
  constructor(private readonly db: Db) {}

  /** Its rule; null when none was ever set (an open workspace on the defaults). */
  get(workspaceId: string): { confined: boolean; hosts: string[] | null } | null {
    const row = this.db
      .prepare('SELECT confined, hosts FROM workspace_egress WHERE workspace_id = ?')
      .get(workspaceId) as { confined: number; hosts: string | null } | undefined;
    if (!row) return null;
    return { confined: row.confined === 1, hosts: row.hosts === null ? null : (JSON.parse(row.hosts) as string[]) };
  }

  set(workspaceId: string, rule: { confined: boolean; hosts: string[] | null }): void {
    this.db
      .prepare(
        `INSERT INTO workspace_egress (workspace_id, confined, hosts, updated_at) VALUES (?, ?, ?, ?)
         ON CONFLICT(workspace_id) DO UPDATE SET confined = excluded.confined, hosts = excluded.hosts,
         updated_at = excluded.updated_at`,
      )
      .run(
        workspaceId,
        rule.confined ? 1 : 0,
        rule.hosts === null ? null : JSON.stringify(rule.hosts),
        new Date().toISOString(),
      );
  }

  /**
   * A fresh proxy credential for a confined workspace, replacing the one it had (a container made before holds a
   * worthless one from now on). The value is returned once and never stored: only its SHA-256.
   */
  issueCredential(workspaceId: string): string {
    const credential = `nxe_${randomBytes(32).toString('base64url')}`;
    const changed = this.db
      .prepare('UPDATE workspace_egress SET proxy_hash = ? WHERE workspace_id = ? AND confined = 1')
      .run(hashOf(credential), workspaceId).changes;
    if (changed !== 1) throw new Error(`workspace ${workspaceId} is not confined: no proxy credential`);
    return credential;
  }

  /** The confined workspace a presented proxy credential is, or null (unknown, revoked, or its workspace gone). */
  workspaceOfCredential(credential: string): string | null {
    if (!PROXY_CREDENTIAL.test(credential)) return null;
    const row = this.db
      .prepare('SELECT workspace_id FROM workspace_egress WHERE proxy_hash = ? AND confined = 1')
      .get(hashOf(credential)) as { workspace_id: string } | undefined;
    return row?.workspace_id ?? null;
  }

  refuse(workspaceId: string, r: EgressRefusal): void {
    this.db.transaction(() => {
      this.db
        .prepare('INSERT INTO egress_refusals (workspace_id, at, method, host, port, reason) VALUES (?, ?, ?, ?, ?, ?)')
        .run(workspaceId, r.at, r.method, r.host, r.port, r.reason);
      this.db
        .prepare(
          `DELETE FROM egress_refusals WHERE workspace_id = ? AND id <= (SELECT id FROM egress_refusals
           WHERE workspace_id = ? ORDER BY id DESC LIMIT 1 OFFSET ?)`,
        )
        .run(workspaceId, workspaceId, REFUSALS_KEPT);
    })();
  }

  /** Newest first. */
  refusals(workspaceId: string, limit: number): EgressRefusal[] {
    return this.db
      .prepare(
        'SELECT at, method, host, port, reason FROM egress_refusals WHERE workspace_id = ? ORDER BY id DESC LIMIT ?',
      )
      .all(workspaceId, limit) as EgressRefusal[];
  }
}
