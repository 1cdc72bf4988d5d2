import type { ModelPrice } from '../../../shared/contract/usage';
import type { SessionDay, SessionDayModel } from './usage-store';
import { estimateOf } from './usage-prices';

/** A text cell a spreadsheet would run as a formula (OWASP "CSV Injection"): it starts with = + - @, a tab or a CR. */
const FORMULA = /^[=+\-@\t\r]/;

/**
 * One CSV field (RFC 4180): a text that starts like a formula gets a leading `'` (OWASP's advice) so a spreadsheet
 * shows it as text; a field with a comma, a quote, a line break or that `'` is quoted, its quotes doubled.
 */
export function csvField(value: string | number | boolean | null): string {
  if (value === null) return '';
  if (typeof value !== 'string') return String(value);
  const text = FORMULA.test(value) ? `'${value}` : value;
  return /[",\r\n']/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** Where the names of a usage row's workspace, session and task come from: their rooms' stores (core's composition). */
export interface UsageNames {
  workspaceName(id: string): string | null;
  sessionName(id: string): string | null;
  taskTitle(id: string): string | null;
}

/** The rows with their names, ordered by day, workspace, session (a gone one first, as SQL orders a null), model. */
export function named(rows: readonly SessionDay[], names: UsageNames): SessionDayModel[] {
  const cache = new Map<string, string | null>();
  const once = (key: string, read: () => string | null): string | null => {
    if (!cache.has(key)) cache.set(key, read());
    return cache.get(key) ?? null;
  };
  const order = (a: string | null, b: string | null): number =>
    a === b ? 0 : a === null ? -1 : b === null ? 1 : a < b ? -1 : 1;
  return rows
    .map((r) => ({
      ...r,
      workspaceName: once(`w:${r.workspaceId}`, () => names.workspaceName(r.workspaceId)),
      sessionName: once(`s:${r.sessionId}`, () => names.sessionName(r.sessionId)),
      taskTitle: r.taskId ? once(`t:${r.taskId}`, () => names.taskTitle(r.taskId!)) : null,
    }))
    .sort(
      (a, b) =>
        order(a.day, b.day) ||
        order(a.workspaceName, b.workspaceName) ||
        order(a.sessionName, b.sessionName) ||
        order(a.sessionId, b.sessionId) ||
        order(a.model, b.model),
    );
}

export const USAGE_CSV_HEADER = [
  'workspace',
  'session',
  'agent',
  'task',
  'day',
  'input_tokens',
  'output_tokens',
  'cache_write_tokens',
  'cache_read_tokens',
  'requests',
  'estimate_usd',
  'price_known',
] as const;

/**
 * The ledger as CSV, one row per session and UTC day: the per-model sums the store grouped, each priced and summed
 * here. `estimate_usd` counts priced models only; `price_known` is false when a model of the row had no price.
 */
export function usageCsv(
  rows: readonly SessionDayModel[],
  table: readonly ModelPrice[],
): { csv: string; rows: number } {
  const groups = new Map<string, SessionDayModel[]>();
  for (const r of rows) {
    const key = `${r.sessionId}\n${r.day}`;
    groups.set(key, [...(groups.get(key) ?? []), r]);
  }
  const lines = [USAGE_CSV_HEADER.join(',')];
  for (const models of groups.values()) {
    const first = models[0];
    if (!first) continue;
    const sum = (k: 'input' | 'output' | 'cacheWrite' | 'cacheRead' | 'requests') =>
      models.reduce((n, m) => n + m[k], 0);
    const estimate = estimateOf(models, table);
    lines.push(
      [
        first.workspaceName ?? first.workspaceId,
        first.sessionName ?? first.sessionId,
        first.agent,
        first.taskTitle ?? first.taskId,
        first.day,
        sum('input'),
        sum('output'),
        sum('cacheWrite'),
        sum('cacheRead'),
        sum('requests'),
        estimate.usd.toFixed(6),
        estimate.unpricedModels.length === 0,
      ]
        .map(csvField)
        .join(','),
    );
  }
  return { csv: `${lines.join('\r\n')}\r\n`, rows: groups.size };
}
