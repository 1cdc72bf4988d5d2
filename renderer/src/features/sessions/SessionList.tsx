import { memo, useMemo } from 'react';
import type { Session } from '../../../../shared/contract/sessions';
import { StateChip } from './StateChip';
import { byWorkspace } from './session-list';

/**
 * Sessions grouped by workspace. Built for a fleet: the grouping is computed once per list, and a
 * pushed change re-renders only the rows whose session object changed (`applySessionChange` keeps
 * the others as they were), so one event costs one row, not five hundred.
 */
export const SessionList = memo(function SessionList({
  sessions,
  selected,
  onSelect,
}: {
  sessions: Session[];
  selected: string | null;
  onSelect(id: string): void;
}) {
  const groups = useMemo(() => byWorkspace(sessions), [sessions]);
  return groups.map(([workspace, items]) => (
    <section key={workspace} aria-label={`Workspace ${workspace}`} className="session-group">
      <h2>{workspace}</h2>
      <ul className="list" data-testid="session-list">
        {items.map((s) => (
          <SessionRow key={s.id} session={s} selected={s.id === selected} onSelect={onSelect} />
        ))}
      </ul>
    </section>
  ));
});

const SessionRow = memo(function SessionRow({
  session,
  selected,
  onSelect,
}: {
  session: Session;
  selected: boolean;
  onSelect(id: string): void;
}) {
  return (
    <li data-session={session.name} aria-current={selected ? 'true' : undefined}>
      <button type="button" className="link" onClick={() => onSelect(session.id)}>
        <strong>{session.name}</strong>
      </button>
      <StateChip session={session} />
      <span className="muted"> {session.branch}</span>
      {session.agentMessage ? <span className="muted"> — {session.agentMessage}</span> : null}
      {session.status === 'error' && session.reason ? <p className="banner bad">{session.reason}</p> : null}
      {session.toolsReason ? (
        <p className="muted" data-testid="tools-reason">
          {session.toolsReason}
        </p>
      ) : null}
    </li>
  );
});
