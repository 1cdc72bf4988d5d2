import { Fragment, useState } from 'react';
import type { ActivityCaller, CallerKind } from '../../../../shared/contract';
import { ErrorBanner } from '../../shell/ErrorBanner';
import { SettingsSection } from './SettingsSection';
import { useActivity, type ActivityFilters } from './use-activity';

const kinds: { value: CallerKind | ''; label: string }[] = [
  { value: '', label: 'Everyone' },
  { value: 'operator', label: 'You (operator)' },
  { value: 'token', label: 'MCP tokens and delegated credentials' },
  { value: 'connector', label: 'Connectors (OAuth)' },
  { value: 'anonymous', label: 'Refused, no credential' },
];

/** The filters typed as text: part of an operation's name, an outcome. */
const textFilters: { key: 'operation' | 'outcome'; label: string; placeholder: string }[] = [
  { key: 'operation', label: 'Operation', placeholder: 'e.g. mcp: or sessions.create' },
  { key: 'outcome', label: 'Outcome', placeholder: 'ok, forbidden, unauthorized…' },
];

const callerText = (c: ActivityCaller): string => {
  if (c.kind === 'operator') return 'operator';
  if (c.kind === 'anonymous') return 'no credential';
  const what = c.kind === 'connector' ? 'connector' : c.kind === 'token' ? 'token' : 'caller';
  return c.name ? `${what} “${c.name}”` : `${what} ${c.id ?? ''}`;
};

/** Settings → Activity: what each caller did, newest first; operation, target and outcome only. */
export function ActivitySection() {
  const [filters, setFilters] = useState<ActivityFilters>({ callerKind: '', operation: '', outcome: '' });
  const activity = useActivity(filters);
  const entries = activity.data?.pages.flatMap((p) => p.entries) ?? [];
  return (
    <SettingsSection id="activity" title="Activity">
      <p className="muted">
        Every call by the operator, MCP tokens, delegated credentials and connectors, and every refusal. Only the
        operation, its target and how it ended are kept — never what was sent or returned.
      </p>
      <form className="form-grid" aria-label="Filter activity" onSubmit={(e) => e.preventDefault()}>
        <label htmlFor="activity-caller">Caller</label>
        <select
          id="activity-caller"
          value={filters.callerKind}
          onChange={(e) => setFilters({ ...filters, callerKind: e.target.value as CallerKind | '' })}
        >
          {kinds.map((k) => (
            <option key={k.value} value={k.value}>
              {k.label}
            </option>
          ))}
        </select>
        {textFilters.map((f) => (
          <Fragment key={f.key}>
            <label htmlFor={`activity-${f.key}`}>{f.label}</label>
            <input
              id={`activity-${f.key}`}
              value={filters[f.key]}
              placeholder={f.placeholder}
              onChange={(e) => setFilters({ ...filters, [f.key]: e.target.value })}
            />
          </Fragment>
        ))}
      </form>
      <ErrorBanner error={activity.error} />
      {activity.data && entries.length === 0 ? <p className="muted">Nothing recorded matches.</p> : null}
      <ul className="list" aria-label="Activity">
        {entries.map((e) => (
          <li key={e.id} data-testid="activity-entry">
            <div className="secret-row">
              <span className="muted">{new Date(e.at).toLocaleString()}</span>
              <span className="secret-name">{e.operation}</span>
              {e.target ? <code>{e.target}</code> : null}
              <span>{callerText(e.caller)}</span>
              <span className="muted">{e.transport}</span>
              <span className={`chip ${e.outcome === 'ok' ? 'state-active' : 'state-revoked'}`}>{e.outcome}</span>
            </div>
          </li>
        ))}
      </ul>
      {activity.hasNextPage ? (
        <div className="form-actions">
          <button type="button" disabled={activity.isFetchingNextPage} onClick={() => void activity.fetchNextPage()}>
            {activity.isFetchingNextPage ? 'Loading…' : 'Older'}
          </button>
        </div>
      ) : null}
    </SettingsSection>
  );
}
