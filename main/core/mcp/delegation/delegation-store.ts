import type { Db } from '../../store';

/** A workspace's delegated credential as stored: the token it is, and whether it may act on other workspaces (1). */
export interface DelegationRow {
  workspace_id: string;
  token_id: string;
  all_workspaces: number;
}

/** The link from each workspace to its delegated token (`delegations`). */
export class DelegationStore {
  /** `byToken` runs for every MCP request (is this token a delegated credential?): all prepared once. */
  private readonly byToken;
  private readonly byWorkspace;
  private readonly everyRow;
  private readonly setAll;
  private readonly upsert;
  private readonly remove;

  constructor(db: Db) {
    this.byToken = db.prepare('SELECT * FROM delegations WHERE token_id = ?');
    this.byWorkspace = db.prepare('SELECT * FROM delegations WHERE workspace_id = ?');
    this.everyRow = db.prepare('SELECT * FROM delegations ORDER BY created_at, workspace_id');
    this.setAll = db.prepare('UPDATE delegations SET all_workspaces = ? WHERE workspace_id = ?');
    this.upsert = db.prepare(
      `INSERT INTO delegations (workspace_id, token_id, all_workspaces, created_at) VALUES (?, ?, ?, ?)
       ON CONFLICT (workspace_id) DO UPDATE SET token_id = excluded.token_id, all_workspaces = excluded.all_workspaces`,
    );
    this.remove = db.prepare('DELETE FROM delegations WHERE workspace_id = ?');
  }

  /** Every credential, oldest first. */
  all(): DelegationRow[] {
    return this.everyRow.all() as DelegationRow[];
  }

  ofWorkspace(workspaceId: string): DelegationRow | null {
    return (this.byWorkspace.get(workspaceId) as DelegationRow | undefined) ?? null;
  }

  ofToken(tokenId: string): DelegationRow | null {
    return (this.byToken.get(tokenId) as DelegationRow | undefined) ?? null;
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
