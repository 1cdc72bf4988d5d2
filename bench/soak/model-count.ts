import type { ModelRequest } from '../../test/helpers/model-api';
import type { StageRow } from './ledger';

/** What the gateway's ledger holds per session: its model_usage rows (one per counted answer). */
export type LedgerCounts = ReadonlyMap<string, number>;

/**
 * 7. model requests: the answers with usage the stand-in gave (each `/v1/messages` request, a turn or a side one;
 * count_tokens reports none) against the gateway's ledger rows of the same session. Lost: answered, not counted;
 * doubled: counted more often than answered (a retried request counted twice, or a row with no answer). A request that
 * arrived from a second before core was killed until it was back may have been answered into a dead connection (the
 * gateway counts an answer when its end passes, before passing it on: docs/gateway.md, "The ledger and budgets"):
 * those are explained by the kill. A request no session's conversation id names is listed apart.
 */
export function modelRequestRow(input: {
  requests: readonly ModelRequest[];
  sessionOf(agentSessionId: string): string | null;
  ledger: LedgerCounts;
  coreDown: readonly [number, number][];
}): { row: StageRow; doubled: number } {
  const answered = new Map<string, ModelRequest[]>();
  let unattributed = 0;
  for (const r of input.requests) {
    if (r.kind !== 'turn' && r.kind !== 'side') continue;
    const session = input.sessionOf(r.headers['x-claude-code-session-id'] ?? '');
    if (!session) {
      unattributed++;
      continue;
    }
    answered.set(session, [...(answered.get(session) ?? []), r]);
  }
  const nearKill = (r: ModelRequest): boolean => input.coreDown.some(([down, up]) => r.at >= down - 1000 && r.at <= up);
  let sent = 0;
  let lost = 0;
  let explained = 0;
  let doubled = 0;
  for (const [session, requests] of answered) {
    const counted = input.ledger.get(session) ?? 0;
    sent += requests.length;
    const missing = requests.length - counted;
    if (missing > 0) {
      lost += missing;
      explained += Math.min(missing, requests.filter(nearKill).length);
    } else doubled -= missing;
  }
  const phantom = [...input.ledger].filter(([session]) => !answered.has(session)).reduce((n, [, rows]) => n + rows, 0);
  doubled += phantom;
  return {
    row: {
      stage: 'model requests: stand-in → gateway ledger',
      sent,
      received: sent - lost,
      lost,
      explained,
      note:
        `${doubled} doubled (counted more often than answered${phantom ? `, ${phantom} rows of no answered session` : ''}); ` +
        `${[...input.ledger.values()].reduce((a, b) => a + b, 0)} ledger rows in all` +
        (unattributed ? `; ${unattributed} answers no session's conversation id names` : ''),
    },
    doubled,
  };
}

/** The ledger's rows per session, read from core's database (after its 200 ms batch is written). */
export const LEDGER_COUNTS_SQL = 'SELECT session_id AS session, count(*) AS n FROM model_usage GROUP BY session_id';
