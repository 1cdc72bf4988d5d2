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

/** A workspace's egress rule and its refusals (migration 035). */
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
