import { randomUUID } from 'node:crypto';
import type { AgentKind, Workspace, WorkspaceStatus } from '../../../shared/contract';
import { AGENT_KINDS } from '../agents';
import type { Db } from '../store';

interface Row {
  id: string;
  name: string;
  repo_url: string;
  secret_id: string | null;
  agent_secret_id: string | null;
  bypass_permissions: number;
  image: string | null;
  status: WorkspaceStatus;
  reason: string | null;
  container_id: string | null;
  volume: string;
  engine: string;
  created_at: string;
  updated_at: string;
  /** workspace_agent_defaults.agent (migration 023), joined; null when never set. */
  default_agent: AgentKind | null;
}

export type WorkspaceRecord = Workspace & { volume: string };

const toRecord = (r: Row): WorkspaceRecord => ({
  id: r.id,
  name: r.name,
  repoUrl: r.repo_url,
  secretId: r.secret_id,
  agentSecretId: r.agent_secret_id,
  bypassPermissions: r.bypass_permissions === 1,
  defaultAgent: r.default_agent ?? AGENT_KINDS[0] ?? '',
  image: r.image,
  status: r.status,
  reason: r.reason,
  containerId: r.container_id,
  volume: r.volume,
  engine: r.engine,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

/** Every column of a workspace with its default agent kind. */
const SELECT = `SELECT w.*, d.agent AS default_agent FROM workspaces w
  LEFT JOIN workspace_agent_defaults d ON d.workspace_id = w.id`;

export const publicWorkspace = ({ volume: _volume, ...w }: WorkspaceRecord): Workspace => w;

/** The workspaces table. */
export class WorkspaceStore {
  constructor(private readonly db: Db) {}

  /** Workspaces per engine id: all of them, and the running ones. */
  countsByEngine(): Map<string, { all: number; running: number }> {
    const rows = this.db
      .prepare(
        "SELECT engine, COUNT(*) AS n, SUM(CASE WHEN status = 'running' THEN 1 ELSE 0 END) AS r FROM workspaces GROUP BY engine",
      )
      .all() as { engine: string; n: number; r: number }[];
    return new Map(rows.map((x) => [x.engine, { all: x.n, running: x.r }]));
  }

  /** Each workspace's engine id, by workspace id. */
  engines(): Map<string, string> {
    const rows = this.db.prepare('SELECT id, engine FROM workspaces').all() as { id: string; engine: string }[];
    return new Map(rows.map((r) => [r.id, r.engine]));
  }

  list(): WorkspaceRecord[] {
    return (this.db.prepare(`${SELECT} ORDER BY w.created_at, w.name`).all() as Row[]).map(toRecord);
  }

  /** By id or by name. */
  find(ref: string): WorkspaceRecord | null {
    const row = this.db.prepare(`${SELECT} WHERE w.id = ? OR w.name = ? LIMIT 1`).get(ref, ref) as Row | undefined;
    return row ? toRecord(row) : null;
  }

  count(): number {
    return (this.db.prepare('SELECT COUNT(*) AS n FROM workspaces').get() as { n: number }).n;
  }

  insert(w: {
    name: string;
    repoUrl: string;
    secretId: string | null;
    image: string | null;
    volumePrefix: string;
    agentSecretId?: string | null;
    bypassPermissions?: boolean;
    /** The agent kind of its sessions when a create names none (absent: Claude Code). */
    defaultAgent?: AgentKind;
    /** The engine it lives on (default: the local one). */
    engine?: string;
  }): WorkspaceRecord {
    const id = randomUUID();
    const now = new Date().toISOString();
    this.db
      .prepare(
        `INSERT INTO workspaces (id, name, repo_url, secret_id, agent_secret_id, bypass_permissions, image, status,
           reason, container_id, volume, engine, created_at, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, 'creating', NULL, NULL, ?, ?, ?, ?)`,
      )
      .run(
        id,
        w.name,
        w.repoUrl,
        w.secretId,
        w.agentSecretId ?? null,
        w.bypassPermissions ? 1 : 0,
        w.image,
        `${w.volumePrefix}${id.slice(0, 12)}`,
        w.engine ?? 'local',
        now,
        now,
      );
    if (w.defaultAgent) this.setDefaultAgent(id, w.defaultAgent);
    return this.get(id);
  }

  get(id: string): WorkspaceRecord {
    const row = this.db.prepare(`${SELECT} WHERE w.id = ?`).get(id) as Row | undefined;
    if (!row) throw new Error(`workspace ${id} vanished`);
    return toRecord(row);
  }

  update(
    id: string,
    patch: Partial<Pick<WorkspaceRecord, 'status' | 'reason' | 'containerId' | 'image'>>,
  ): WorkspaceRecord | null {
    const cur = this.db.prepare(`${SELECT} WHERE w.id = ?`).get(id) as Row | undefined;
    if (!cur) return null;
    const next = { ...toRecord(cur), ...patch };
    this.db
      .prepare('UPDATE workspaces SET status = ?, reason = ?, container_id = ?, image = ?, updated_at = ? WHERE id = ?')
      .run(next.status, next.reason, next.containerId, next.image, new Date().toISOString(), id);
    return this.get(id);
  }

  /** The agent kind the workspace's new sessions get when the create names none. */
  setDefaultAgent(id: string, agent: AgentKind): void {
    this.db
      .prepare(
        `INSERT INTO workspace_agent_defaults (workspace_id, agent, updated_at) VALUES (?, ?, ?)
         ON CONFLICT(workspace_id) DO UPDATE SET agent = excluded.agent, updated_at = excluded.updated_at`,
      )
      .run(id, agent, new Date().toISOString());
  }

  delete(id: string): void {
    this.db.prepare('DELETE FROM workspaces WHERE id = ?').run(id);
  }
}
