import type { ActivityCaller, ActivityEntry } from '../../../shared/contract';
import type { AuditLog } from './audit-log';

import type { ActivityFilter } from './audit-store';

export type { ActivityFilter };

const TARGET_MAX = 120;
/** Reading the activity is audited (an operator operation) but not listed, or every page view would fill it. */
const OWN_OPERATION = 'activity.list';

const TOKEN_ACTOR = 'token:';
const CONNECTOR_ACTOR = 'token:oauth:';

/** The audit's actor string (`token:<id>`, `token:oauth:<grant>`, …) as a caller; never `name:value` text (it reads as a secret). */
function callerOf(actor: string, names: (kind: 'token' | 'connector', id: string) => string | null): ActivityCaller {
  if (actor === 'operator' || actor === 'anonymous') return { kind: actor, id: null, name: null };
  if (actor.startsWith(CONNECTOR_ACTOR)) {
    const id = actor.slice(CONNECTOR_ACTOR.length);
    return { kind: 'connector', id, name: names('connector', id) };
  }
  if (actor.startsWith(TOKEN_ACTOR)) {
    const id = actor.slice(TOKEN_ACTOR.length);
    return { kind: 'token', id, name: names('token', id) };
  }
  return { kind: 'other', id: actor, name: null };
}

/**
 * The audit log as Settings → Activity shows it: newest first, paged by id, filtered by caller,
 * operation and outcome. Names of tokens and connectors come from `names`; the detail is cut to a
 * short target. Nothing else is read: the audit never holds inputs or results.
 */
export function listActivity(
  audit: AuditLog,
  filter: ActivityFilter,
  names: (kind: 'token' | 'connector', id: string) => string | null,
): { entries: ActivityEntry[]; nextBefore: number | null } {
  audit.flush();
  const rows = audit.store.activity(filter, OWN_OPERATION, TOKEN_ACTOR, CONNECTOR_ACTOR);
  const page = rows.slice(0, filter.limit);
  return {
    entries: page.map((r) => ({
      id: r.id,
      at: r.at,
      caller: callerOf(r.actor, names),
      transport: r.transport,
      operation: r.operation,
      target: r.detail ? r.detail.slice(0, TARGET_MAX) : null,
      outcome: r.outcome,
      durationMs: r.durationMs,
    })),
    nextBefore: rows.length > filter.limit ? (page.at(-1)?.id ?? null) : null,
  };
}
