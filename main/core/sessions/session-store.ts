import type { AgentKind, AgentState, SessionStatus } from '../../../shared/contract/sessions';
import { AGENT_KINDS } from '../agents';
import { randomUUID } from 'node:crypto';
import type { Db } from '../store';
import { sessionBranch } from './session-paths';

/** A sessions row as stored (migration 005). */
export interface SessionRow {
  id: string;
  workspace_id: string;
  name: string;
  branch: string;
  status: SessionStatus;
  reason: string | null;
  agent_state: AgentState;
  agent_state_at: string | null;
  agent_message: string | null;
  agent_session_id: string;
  window_id: string | null;
  /** The platform run its agent calls tools as (migration 007); null without NATS. */
  run_id: string | null;
  /** The task it runs on (migration 010): its goal is the initial message, or a task the operator picked. */
  task_id: string | null;
  /** Why it runs without platform tools (migration 010); null when it has them. */
  tools_reason: string | null;
  /** The agent CLI it runs (migration 023). */
  agent: AgentKind;
  /** The conversation id a kind's CLI chooses and reports in a hook (migration 023); null for kinds that take Nexus's. */
  agent_thread_id: string | null;
  /** The provider's usage-limit reset, when its 429 came, whether it ended the turn (migration 034); null: not limited. */
  limited_until?: string | null;
  limited_at?: string | null;
  limited_ended_turn?: number | null;
  created_at: string;
  updated_at: string;
}

export type SessionPatch = Partial<
  Pick<
    SessionRow,
    | 'status'
    | 'reason'
    | 'agent_state'
    | 'agent_state_at'
    | 'agent_message'
    | 'window_id'
    | 'run_id'
    | 'tools_reason'
    | 'agent_thread_id'
    | 'limited_until'
    | 'limited_at'
    | 'limited_ended_turn'
  >
>;

/** A new session's row as a create inserts it: `creating`, its agent `starting`, on `nexus/<name>`. */
export function newSessionRow(workspaceId: string, name: string, agent: AgentKind = AGENT_KINDS[0] ?? ''): SessionRow {
  const now = new Date().toISOString();
  return {
    id: randomUUID(),
    workspace_id: workspaceId,
    name,
    branch: sessionBranch(name),
    status: 'creating',
    reason: null,
    agent_state: 'starting',
    agent_state_at: null,
    agent_message: null,
    agent_session_id: randomUUID(),
    window_id: null,
    run_id: null,
    task_id: null,
    tools_reason: null,
    agent,
    agent_thread_id: null,
    created_at: now,
    updated_at: now,
  };
}

export class SessionStore {
  constructor(private readonly db: Db) {}

  insert(row: SessionRow): void {
    this.db
      .prepare(
        `INSERT INTO sessions (id, workspace_id, name, branch, status, reason, agent_state, agent_state_at,
           agent_message, agent_session_id, window_id, run_id, task_id, tools_reason, agent, agent_thread_id,
           created_at, updated_at)
         VALUES (@id, @workspace_id, @name, @branch, @status, @reason, @agent_state, @agent_state_at,
           @agent_message, @agent_session_id, @window_id, @run_id, @task_id, @tools_reason, @agent, @agent_thread_id,
           @created_at, @updated_at)`,
      )
      .run(row);
  }

  get(id: string): SessionRow | null {
    return (this.db.prepare(`SELECT * FROM sessions WHERE id = ?`).get(id) as SessionRow | undefined) ?? null;
  }

  byName(workspaceId: string, name: string): SessionRow | null {
    return (
      (this.db.prepare(`SELECT * FROM sessions WHERE workspace_id = ? AND name = ?`).get(workspaceId, name) as
        SessionRow | undefined) ?? null
    );
  }

  list(workspaceId?: string): SessionRow[] {
    return workspaceId
      ? (this.db
          .prepare(`SELECT * FROM sessions WHERE workspace_id = ? ORDER BY created_at, name`)
          .all(workspaceId) as SessionRow[])
      : (this.db.prepare(`SELECT * FROM sessions ORDER BY created_at, name`).all() as SessionRow[]);
  }

  count(workspaceId: string): number {
    return (
      this.db.prepare(`SELECT count(*) AS n FROM sessions WHERE workspace_id = ?`).get(workspaceId) as { n: number }
    ).n;
  }

  update(id: string, patch: SessionPatch): SessionRow | null {
    const keys = Object.keys(patch) as (keyof SessionPatch)[];
    if (keys.length > 0) {
      const set = keys.map((k) => `${k} = @${k}`).join(', ');
      this.db
        .prepare(`UPDATE sessions SET ${set}, updated_at = @updated_at WHERE id = @id`)
        .run({ ...patch, id, updated_at: new Date().toISOString() });
    }
    return this.get(id);
  }

  /** The tasks of a workspace's live sessions (creating or running), one entry per session that runs on a task. */
  liveTaskIds(workspaceId: string): string[] {
    return (
      this.db
        .prepare(
          `SELECT task_id FROM sessions WHERE workspace_id = ? AND task_id IS NOT NULL AND status IN ('creating', 'running')`,
        )
        .all(workspaceId) as { task_id: string }[]
    ).map((r) => r.task_id);
  }

  /** Live sessions (creating or running) per workspace id. */
  liveByWorkspace(): Map<string, number> {
    const rows = this.db
      .prepare(
        `SELECT workspace_id AS workspaceId, COUNT(*) AS n FROM sessions WHERE status IN ('creating', 'running') GROUP BY workspace_id`,
      )
      .all() as { workspaceId: string; n: number }[];
    return new Map(rows.map((r) => [r.workspaceId, r.n]));
  }

  /** Sessions limited by their provider (a restarted core re-arms their resume). */
  limited(): { id: string; limited_until: string }[] {
    return this.db.prepare(`SELECT id, limited_until FROM sessions WHERE limited_until IS NOT NULL`).all() as {
      id: string;
      limited_until: string;
    }[];
  }

  delete(id: string): void {
    this.db.prepare(`DELETE FROM sessions WHERE id = ?`).run(id);
  }
}
