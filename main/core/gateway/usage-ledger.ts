import type { TokenCounts } from './usage-parse';
import type { ModelTokens } from './usage-prices';
import { dayOf, type UsageRow, type UsageStore, type UsageTotals } from './usage-store';

/** How long an answer's row may wait before it is written (one transaction, so one fsync, for all that wait). */
const FLUSH_MS = 200;

const add = (t: UsageTotals, c: TokenCounts): UsageTotals => ({
  requests: t.requests + 1,
  input: t.input + c.input,
  output: t.output + c.output,
  cacheWrite: t.cacheWrite + c.cacheWrite,
  cacheRead: t.cacheRead + c.cacheRead,
  total: t.total + c.input + c.output + c.cacheWrite + c.cacheRead,
});

/**
 * The ledger as the gateway writes it: each answer's row waits at most FLUSH_MS and goes with the others that wait in
 * one transaction. The database is synchronous=FULL (the vault lives there), so a write per answer would put an fsync
 * on the event loop of every model request (measured: a quarter of the gateway's CPU, +30 ms per answer under load;
 * docs/performance.md). Totals and budgets count the waiting rows too. A core killed meanwhile loses at most the
 * answers of its last FLUSH_MS (docs/gateway.md says so).
 */
export class UsageLedger {
  private pending: UsageRow[] = [];
  private timer: NodeJS.Timeout | null = null;

  constructor(readonly store: UsageStore) {}

  add(row: UsageRow): void {
    this.pending.push(row);
    this.timer ??= setTimeout(() => this.flush(), FLUSH_MS);
    this.timer.unref();
  }

  /** Writes every waiting row now (at close, and before the rows are read whole). */
  flush(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const rows = this.pending;
    this.pending = [];
    if (rows.length) this.store.recordAll(rows);
  }

  session(id: string): UsageTotals {
    return this.withPending(this.store.session(id), (r) => r.sessionId === id);
  }

  workspace(id: string): UsageTotals {
    return this.withPending(this.store.workspace(id), (r) => r.workspaceId === id);
  }

  day(day: string): UsageTotals {
    return this.withPending(this.store.day(day), (r) => dayOf(r.at) === day);
  }

  /** A scope's tokens per model, the waiting rows counted in (the estimate's input). */
  models(scope: Parameters<UsageStore['models']>[0]): ModelTokens[] {
    const mine = (r: UsageRow): boolean =>
      'sessionId' in scope
        ? r.sessionId === scope.sessionId
        : 'workspaceId' in scope
          ? r.workspaceId === scope.workspaceId
          : dayOf(r.at) === scope.day;
    const byModel = new Map(this.store.models(scope).map((m) => [m.model, { ...m }]));
    for (const { counts } of this.pending.filter(mine)) {
      const m = byModel.get(counts.model) ?? { model: counts.model, input: 0, output: 0, cacheWrite: 0, cacheRead: 0 };
      m.input += counts.input;
      m.output += counts.output;
      m.cacheWrite += counts.cacheWrite;
      m.cacheRead += counts.cacheRead;
      byModel.set(counts.model, m);
    }
    return [...byModel.values()];
  }

  /** Every session's tokens per model (written first: a list of the whole ledger). */
  bySessionModel(): ReturnType<UsageStore['bySessionModel']> {
    this.flush();
    return this.store.bySessionModel();
  }

  /** Each session's tokens per day and model, with names (written first: the CSV export). */
  bySessionDay(): ReturnType<UsageStore['bySessionDay']> {
    this.flush();
    return this.store.bySessionDay();
  }

  rows(sessionId?: string): ReturnType<UsageStore['rows']> {
    this.flush();
    return this.store.rows(sessionId);
  }

  private withPending(t: UsageTotals, mine: (r: UsageRow) => boolean): UsageTotals {
    return this.pending.filter(mine).reduce((acc, r) => add(acc, r.counts), t);
  }
}
