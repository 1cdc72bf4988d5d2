import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import type { Db } from '../../store';
import { searchAllThenAny } from './fts';

export const RunStatus = z.enum(['running', 'finished', 'failed', 'cancelled']);
export type RunStatus = z.infer<typeof RunStatus>;

export interface Run {
  id: string;
  agentId: string;
  taskId: string | null;
  sessionId: string | null;
  status: RunStatus;
  summary: string;
  startedAt: string;
  endedAt: string | null;
}

const Row = z.object({
  id: z.string(),
  agent_id: z.string(),
  task_id: z.string().nullable(),
  session_id: z.string().nullable(),
  status: RunStatus,
  summary: z.string(),
  started_at: z.string(),
  ended_at: z.string().nullable(),
});
const toRun = (raw: unknown): Run => {
  const r = Row.parse(raw);
  return {
    id: r.id,
    agentId: r.agent_id,
    taskId: r.task_id,
    sessionId: r.session_id,
    status: r.status,
    summary: r.summary,
    startedAt: r.started_at,
    endedAt: r.ended_at,
  };
};

export class RunStore {
  private readonly byId;
  private readonly searchStmt;
  constructor(private readonly db: Db) {
    this.byId = db.prepare('SELECT * FROM runs WHERE id = ?');
    const search = (order: string) =>
      db.prepare(
        `SELECT runs.* FROM runs_fts JOIN runs ON runs.rowid = runs_fts.rowid
         WHERE runs_fts MATCH ? AND runs.agent_id = ? AND runs.status != 'running' ${order} LIMIT ?`,
      );
    this.searchStmt = { ranked: search('ORDER BY runs_fts.rank'), unranked: search('') };
  }

  create(input: { agentId: string; taskId?: string | null; sessionId?: string | null }): Run {
    // Run ids become NATS subject tokens and user names: dashes and hex only.
    const run: Run = {
      id: randomUUID(),
      agentId: input.agentId,
      taskId: input.taskId ?? null,
      sessionId: input.sessionId ?? null,
      status: 'running',
      summary: '',
      startedAt: new Date().toISOString(),
      endedAt: null,
    };
    this.db
      .prepare(
        'INSERT INTO runs (id, agent_id, task_id, session_id, status, summary, started_at) VALUES (?, ?, ?, ?, ?, ?, ?)',
      )
      .run(run.id, run.agentId, run.taskId, run.sessionId, run.status, run.summary, run.startedAt);
    return run;
  }

  get(id: string): Run | null {
    const row = this.byId.get(id);
    return row ? toRun(row) : null;
  }

  end(id: string, status: Exclude<RunStatus, 'running'>, summary?: string): void {
    this.db
      .prepare(
        "UPDATE runs SET status = ?, summary = COALESCE(?, summary), ended_at = ? WHERE id = ? AND status = 'running'",
      )
      .run(status, summary ?? null, new Date().toISOString(), id);
  }

  /** The agent's running runs (whose nexus-mcp follows its record). */
  runningOf(agentId: string): Run[] {
    return this.db.prepare("SELECT * FROM runs WHERE agent_id = ? AND status = 'running'").all(agentId).map(toRun);
  }

  /** Runs on a task, newest first. */
  forTask(taskId: string): Run[] {
    return this.db.prepare('SELECT * FROM runs WHERE task_id = ? ORDER BY started_at DESC').all(taskId).map(toRun);
  }

  /**
   * Merges the runs_fts index into a single segment. A query reads every segment of each term's doclist, so an
   * index written row by row answers about twice as slowly as a merged one; core merges at start.
   */
  compact(): void {
    this.db.prepare("INSERT INTO runs_fts(runs_fts) VALUES ('optimize')").run();
  }

  /** Runs still `running` that were started for a session, with their session. */
  runningForSessions(): { id: string; sessionId: string }[] {
    return this.db
      .prepare("SELECT id, session_id AS sessionId FROM runs WHERE status = 'running' AND session_id IS NOT NULL")
      .all() as { id: string; sessionId: string }[];
  }

  /** The run's summary so far (the agent's last message of a finished turn); a running run only. */
  setSummary(id: string, summary: string): void {
    this.db.prepare("UPDATE runs SET summary = ? WHERE id = ? AND status = 'running'").run(summary, id);
  }

  /** Runs left `running` by a previous process whose credentials died with it (all but `keep`). */
  failOrphans(keep: string[]): number {
    const ended = new Date().toISOString();
    const fail = this.db.prepare("UPDATE runs SET status = 'failed', ended_at = ? WHERE status = 'running' AND id = ?");
    const running = this.db.prepare("SELECT id FROM runs WHERE status = 'running'").all() as { id: string }[];
    const kept = new Set(keep);
    let n = 0;
    for (const { id } of running) if (!kept.has(id)) n += fail.run(ended, id).changes;
    return n;
  }

  /** FTS over the agent's own finished runs. */
  search(agentId: string, query: string, limit: number): Run[] {
    return searchAllThenAny(query, limit, (match, n, ranked) =>
      this.searchStmt[ranked ? 'ranked' : 'unranked'].all(match, agentId, n).map(toRun),
    );
  }
}
