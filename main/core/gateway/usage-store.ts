import { StatementThread, type Db } from '../store';
import type { TokenCounts } from './usage-parse';
import { PriceStore } from './usage-price-store';
import type { ModelTokens } from './usage-prices';

export interface UsageRow {
  requestId: string;
  sessionId: string;
  workspaceId: string;
  agent: string;
  taskId: string | null;
  counts: TokenCounts;
  at: Date;
}

export interface UsageTotals {
  requests: number;
  input: number;
  output: number;
  cacheWrite: number;
  cacheRead: number;
  /** All four counts together: what a token budget counts. */
  total: number;
}

export type BudgetScope = 'session' | 'workspace' | 'day';

// Sums of model_usage_daily (the ledger per session, day and model, kept by a trigger: migration 033), so a total reads
// a few rows a session a day, not one a request.
const SUMS = `COALESCE(SUM(input_tokens), 0) AS input, COALESCE(SUM(output_tokens), 0) AS output,
  COALESCE(SUM(cache_write_tokens), 0) AS cacheWrite, COALESCE(SUM(cache_read_tokens), 0) AS cacheRead`;
const TOTALS = `COALESCE(SUM(requests), 0) AS requests, ${SUMS}`;
/** The daily table keeps '' for a model the provider did not name. */
const MODEL = `NULLIF(model, '') AS model`;

/** One session's tokens on one UTC day for one model, with the names a person reads (the CSV export). */
export interface SessionDay extends ModelTokens {
  sessionId: string;
  workspaceId: string;
  agent: string;
  taskId: string | null;
  day: string;
  requests: number;
}

/** A session's day with the names a person reads (null: the session, workspace or task is gone; its id stays). */
export interface SessionDayModel extends SessionDay {
  sessionName: string | null;
  workspaceName: string | null;
  taskTitle: string | null;
}

const INSERT_ROW = `INSERT OR IGNORE INTO model_usage (request_id, session_id, workspace_id, agent, task_id, day, model,
  input_tokens, output_tokens, cache_write_tokens, cache_read_tokens, at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`;

const capKey = (scope: BudgetScope, scopeId: string): string => `${scope}\u0000${scopeId}`;

const totals = (r: Omit<UsageTotals, 'total'>): UsageTotals => ({
  ...r,
  total: r.input + r.output + r.cacheWrite + r.cacheRead,
});

/**
 * The usage ledger and the token budgets (tables model_usage, model_budgets: migration 030; the ledger's sums per
 * session, day and model, model_usage_daily: migration 033).
 */
export class UsageStore {
  /** The price table the estimates use (the operator's rows beside the ledger). */
  readonly prices: PriceStore;

  private capsByKey: Map<string, number> | undefined;
  /** The ledger's INSERT, run on its own thread (store's StatementThread): its commit never holds the event loop. */
  private readonly insert: StatementThread;

  constructor(
    private readonly db: Db,
    /** Told when the ledger's thread fails (its rows are then written on this connection). */
    onThreadFailure?: (why: string) => void,
  ) {
    this.prices = new PriceStore(db);
    this.insert = new StatementThread(db, INSERT_ROW, onThreadFailure);
  }

  /**
   * Records one answer's tokens; resolves once the row is committed. The gateway waits for it before the answer's end
   * reaches the agent, so an answer the agent has whole is counted, whenever core dies. Committed without an fsync
   * (it survives core's death, not the machine's), as an fsync per answer cost a quarter of the gateway's CPU, and on
   * a thread of its own (store's StatementThread), as the commit on the event loop held every other answer in flight
   * (docs/performance.md, "The model gateway"). A request id already recorded is not counted again (resolves false).
   */
  async record(row: UsageRow): Promise<boolean> {
    const changes = await this.insert.run([
      row.requestId,
      row.sessionId,
      row.workspaceId,
      row.agent,
      row.taskId,
      dayOf(row.at),
      row.counts.model,
      row.counts.input,
      row.counts.output,
      row.counts.cacheWrite,
      row.counts.cacheRead,
      row.at.toISOString(),
    ]);
    return changes === 1;
  }

  /** Waits for the rows being written, and ends the ledger's thread. */
  close(): Promise<void> {
    return this.insert.close();
  }

  session(sessionId: string): UsageTotals {
    return totals(
      this.db.prepare(`SELECT ${TOTALS} FROM model_usage_daily WHERE session_id = ?`).get(sessionId) as never,
    );
  }

  workspace(workspaceId: string): UsageTotals {
    return totals(
      this.db.prepare(`SELECT ${TOTALS} FROM model_usage_daily WHERE workspace_id = ?`).get(workspaceId) as never,
    );
  }

  day(day: string): UsageTotals {
    return totals(this.db.prepare(`SELECT ${TOTALS} FROM model_usage_daily WHERE day = ?`).get(day) as never);
  }

  /** Every session's totals (for the session list), by session id. */
  bySession(): Map<string, UsageTotals> {
    const rows = this.db
      .prepare(`SELECT session_id AS sessionId, ${TOTALS} FROM model_usage_daily GROUP BY session_id`)
      .all() as (Omit<UsageTotals, 'total'> & { sessionId: string })[];
    return new Map(rows.map(({ sessionId, ...r }) => [sessionId, totals(r)]));
  }

  /** A session's, a workspace's or a day's tokens per model (an estimate prices each model's sum, not each row). */
  models(scope: { sessionId: string } | { workspaceId: string } | { day: string }): ModelTokens[] {
    const [column, id] =
      'sessionId' in scope
        ? ['session_id', scope.sessionId]
        : 'workspaceId' in scope
          ? ['workspace_id', scope.workspaceId]
          : ['day', scope.day];
    return this.db
      .prepare(`SELECT ${MODEL}, ${SUMS} FROM model_usage_daily WHERE ${column} = ? GROUP BY model`)
      .all(id) as ModelTokens[];
  }

  /** Every session's tokens per model (the session list's estimates). */
  bySessionModel(): (ModelTokens & { sessionId: string; requests: number })[] {
    return this.db
      .prepare(`SELECT session_id AS sessionId, ${MODEL}, ${TOTALS} FROM model_usage_daily GROUP BY session_id, model`)
      .all() as never;
  }

  /**
   * Each session's tokens per UTC day and model, oldest day first, by ids: the names of its workspace, itself and its
   * task are their rooms' (usage-csv.ts `named` puts them in).
   */
  bySessionDay(): SessionDay[] {
    return this.db
      .prepare(
        `SELECT session_id AS sessionId, workspace_id AS workspaceId, agent, task_id AS taskId, day,
           NULLIF(model, '') AS model, requests, input_tokens AS input, output_tokens AS output,
           cache_write_tokens AS cacheWrite, cache_read_tokens AS cacheRead
         FROM model_usage_daily ORDER BY day, session_id, model`,
      )
      .all() as never;
  }

  /** The ledger's rows of a session, oldest first (the CSV export, the tests' request-by-request check). */
  rows(sessionId?: string): (Omit<UsageRow, 'counts' | 'at'> & TokenCounts & { at: string; day: string })[] {
    return this.db
      .prepare(
        `SELECT request_id AS requestId, session_id AS sessionId, workspace_id AS workspaceId, agent, task_id AS taskId,
           day, model, input_tokens AS input, output_tokens AS output, cache_write_tokens AS cacheWrite,
           cache_read_tokens AS cacheRead, at
         FROM model_usage ${sessionId ? 'WHERE session_id = ?' : ''} ORDER BY at, request_id`,
      )
      .all(...(sessionId ? [sessionId] : [])) as never;
  }

  budget(scope: BudgetScope, scopeId: string): number | null {
    return this.caps().get(capKey(scope, scopeId)) ?? null;
  }

  setBudget(scope: BudgetScope, scopeId: string, maxTokens: number | null): void {
    if (maxTokens === null)
      this.db.prepare('DELETE FROM model_budgets WHERE scope = ? AND scope_id = ?').run(scope, scopeId);
    else
      this.db
        .prepare(
          `INSERT INTO model_budgets (scope, scope_id, max_tokens, updated_at) VALUES (?, ?, ?, ?)
           ON CONFLICT(scope, scope_id) DO UPDATE SET max_tokens = excluded.max_tokens, updated_at = excluded.updated_at`,
        )
        .run(scope, scopeId, maxTokens, new Date().toISOString());
    const caps = this.caps();
    if (maxTokens === null) caps.delete(capKey(scope, scopeId));
    else caps.set(capKey(scope, scopeId), maxTokens);
  }

  /**
   * Every cap, read once and then kept with each change: each model request asks for up to three, and only this store
   * writes them (core's one UsageStore: the gateway's).
   */
  private caps(): Map<string, number> {
    this.capsByKey ??= new Map(
      (
        this.db.prepare('SELECT scope, scope_id AS id, max_tokens AS max FROM model_budgets').all() as {
          scope: BudgetScope;
          id: string;
          max: number;
        }[]
      ).map((r) => [capKey(r.scope, r.id), r.max]),
    );
    return this.capsByKey;
  }
}

/** The ledger's day: UTC, so a day's cap means the same on every machine. */
export const dayOf = (at: Date): string => at.toISOString().slice(0, 10);
