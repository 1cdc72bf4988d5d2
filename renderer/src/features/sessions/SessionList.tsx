import { memo, useMemo } from 'react';
import type { Session } from '../../../../shared/contract/sessions';
import { PendingRows, useProgressive } from '../../shell/progressive';
import { StateChip } from './StateChip';
import { byWorkspace, groupsFor } from './session-list';

/**
 * Sessions grouped by workspace. Built for a fleet: the grouping is computed once per list, and a
 * pushed change re-renders only the rows whose session object changed (`applySessionChange` keeps
 * the others as they were), so one event costs one row, not five hundred. A long list renders the
 * groups that fill the view, then more as the operator scrolls (`useProgressive`); the selected
 * session's group always renders.
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
  const { shown, more, showAll } = useProgressive(sessions.length);
  const visible = groupsFor(groups, shown, selected);
  const rest = groups.slice(visible.length).reduce((n, [, items]) => n + items.length, 0);
  return (
    <>
      {visible.map(([workspace, items]) => (
        <section key={workspace} aria-label={`Workspace ${workspace}`} className="session-group">
          <h2>{workspace}</h2>
          <ul className="list" data-testid="session-list">
            {items.map((s) => (
              <SessionRow key={s.id} session={s} selected={s.id === selected} onSelect={onSelect} />
            ))}
          </ul>
        </section>
      ))}
      {rest > 0 ? (
        <PendingRows
          rows={rest}
          extraPx={(groups.length - visible.length) * GROUP_HEADER_PX}
          label={`Show the other ${rest} sessions`}
          more={more}
          showAll={showAll}
        />
      ) : null}
    </>
  );
});

/** A workspace heading's height, for the placeholder of the groups not rendered yet. */
const GROUP_HEADER_PX = 60;

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
