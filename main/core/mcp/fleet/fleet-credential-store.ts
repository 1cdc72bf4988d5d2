import type { Db } from '../../store';

/** A workspace's fleet credential as stored: the token it is, and whether it may act on other workspaces (1). */
export interface FleetCredentialRow {
  workspace_id: string;
  token_id: string;
  all_workspaces: number;
}

/** The link from each workspace to its fleet token (`fleet_credentials`). */
export class FleetCredentialStore {
  /** `byToken` runs for every MCP request (is this token a fleet credential?): all prepared once. */
  private readonly byToken;
  private readonly byWorkspace;
  private readonly everyRow;
  private readonly setAll;
  private readonly upsert;
  private readonly remove;

  constructor(db: Db) {
    this.byToken = db.prepare('SELECT * FROM fleet_credentials WHERE token_id = ?');
    this.byWorkspace = db.prepare('SELECT * FROM fleet_credentials WHERE workspace_id = ?');
    this.everyRow = db.prepare('SELECT * FROM fleet_credentials ORDER BY created_at, workspace_id');
    this.setAll = db.prepare('UPDATE fleet_credentials SET all_workspaces = ? WHERE workspace_id = ?');
    this.upsert = db.prepare(
      `INSERT INTO fleet_credentials (workspace_id, token_id, all_workspaces, created_at) VALUES (?, ?, ?, ?)
       ON CONFLICT (workspace_id) DO UPDATE SET token_id = excluded.token_id, all_workspaces = excluded.all_workspaces`,
    );
    this.remove = db.prepare('DELETE FROM fleet_credentials WHERE workspace_id = ?');
  }

  /** Every credential, oldest first. */
  all(): FleetCredentialRow[] {
    return this.everyRow.all() as FleetCredentialRow[];
  }

  ofWorkspace(workspaceId: string): FleetCredentialRow | null {
    return (this.byWorkspace.get(workspaceId) as FleetCredentialRow | undefined) ?? null;
  }

  ofToken(tokenId: string): FleetCredentialRow | null {
    return (this.byToken.get(tokenId) as FleetCredentialRow | undefined) ?? null;
  }

  setAllWorkspaces(workspaceId: string, allWorkspaces: boolean): void {
    this.setAll.run(allWorkspaces ? 1 : 0, workspaceId);
  }

  /** Links a workspace to a (new) token; a link made before keeps its creation time. */
  link(workspaceId: string, tokenId: string, allWorkspaces: boolean, createdAt: string): void {
    this.upsert.run(workspaceId, tokenId, allWorkspaces ? 1 : 0, createdAt);
  }

  forget(workspaceId: string): void {
    this.remove.run(workspaceId);
  }
}
