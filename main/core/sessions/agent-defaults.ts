import type { AgentKind } from '../../../shared/contract/sessions';
import type { Db } from '../store/open';

/** The kind a workspace's new sessions get when the create names none (migration 023); Claude Code by default. */
export function workspaceDefaultAgent(db: Db, workspaceId: string): AgentKind {
  const row = db.prepare(`SELECT agent FROM workspace_agent_defaults WHERE workspace_id = ?`).get(workspaceId) as
    { agent: AgentKind } | undefined;
  return row?.agent ?? 'claude';
}

export function setWorkspaceDefaultAgent(db: Db, workspaceId: string, agent: AgentKind): void {
  db.prepare(
    `INSERT INTO workspace_agent_defaults (workspace_id, agent, updated_at) VALUES (?, ?, ?)
     ON CONFLICT(workspace_id) DO UPDATE SET agent = excluded.agent, updated_at = excluded.updated_at`,
  ).run(workspaceId, agent, new Date().toISOString());
}
