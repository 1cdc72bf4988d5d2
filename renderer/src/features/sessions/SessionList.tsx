import { memo, useEffect, useMemo, useRef, type KeyboardEvent } from 'react';
import type { Session } from '../../../../shared/contract/sessions';
import { PendingRows, useProgressive } from '../../shell/progressive';
import { moveSelection, type SelectHow } from './session-filter';
import { byWorkspace, groupsFor } from './session-list';
import { SessionRow } from './SessionRow';

/** The scroll container the list renders more rows in (the list column of the Sessions page). */
export const LIST_PANE = '.session-list-pane';

/**
 * Sessions grouped by workspace, as a listbox: ↑/↓ (or k/j), Home and End move the selection, which
 * the detail beside it follows (Enter or Space selects the focused option); one option is in the
 * tab order (the selected one, else the first). Built for a fleet: the grouping is computed once per
 * list, and a pushed change re-renders only the rows whose session object changed
 * (`applySessionChange` keeps the others as they were), so one event costs one row, not five
 * hundred. A long list renders the groups that fill the view, then more as the operator scrolls
 * (`useProgressive`); the selected session's group always renders.
 */
export const SessionList = memo(function SessionList({
  sessions,
  selected,
  onSelect,
}: {
  sessions: Session[];
  selected: string | null;
  onSelect(id: string, how: SelectHow): void;
}) {
  const groups = useMemo(() => byWorkspace(sessions), [sessions]);
  const order = useMemo(() => groups.flatMap(([, items]) => items.map((s) => s.id)), [groups]);
  const { shown, more, showAll } = useProgressive(sessions.length, { root: LIST_PANE });
  const visible = groupsFor(groups, shown, selected);
  const rest = groups.slice(visible.length).reduce((n, [, items]) => n + items.length, 0);
  const listbox = useRef<HTMLDivElement>(null);
  const focusNext = useRef<string | null>(null);
  const tabStop = selected !== null && order.includes(selected) ? selected : (order[0] ?? null);

  // A keyboard move focuses the option it landed on, once that option has rendered.
  useEffect(() => {
    const id = focusNext.current;
    if (!id || id !== selected) return;
    focusNext.current = null;
    const option = [...(listbox.current?.querySelectorAll<HTMLElement>('[role="option"]') ?? [])].find(
      (el) => el.dataset['sessionId'] === id,
    );
    option?.focus();
    option?.scrollIntoView({ block: 'nearest' });
  }, [selected, visible.length]);

  const onKeyDown = (e: KeyboardEvent<HTMLDivElement>): void => {
    if (e.altKey || e.ctrlKey || e.metaKey) return;
    const steps: Record<string, number> = {
      ArrowDown: 1,
      j: 1,
      ArrowUp: -1,
      k: -1,
      Home: -order.length,
      End: order.length,
    };
    // From the option that has the focus (Tab lands on the first when none is selected).
    const focused = e.target instanceof HTMLElement ? (e.target.dataset['sessionId'] ?? null) : null;
    if ((e.key === 'Enter' || e.key === ' ') && focused) {
      e.preventDefault();
      if (focused !== selected) onSelect(focused, 'push');
      return;
    }
    const step = steps[e.key];
    if (step === undefined) return;
    e.preventDefault();
    const next = moveSelection(order, focused ?? selected, step);
    if (!next || next === selected) return;
    focusNext.current = next;
    onSelect(next, 'replace');
  };

  return (
    <>
      <div
        ref={listbox}
        role="listbox"
        aria-label="Sessions"
        className="session-listbox"
        data-testid="session-list"
        onKeyDown={onKeyDown}
      >
        {visible.map(([workspace, items]) => (
          <div key={workspace} role="group" aria-label={`Workspace ${workspace}`} className="session-group">
            <div className="session-group-title" aria-hidden="true">
              {workspace}
            </div>
            {items.map((s) => (
              <SessionRow
                key={s.id}
                session={s}
                selected={s.id === selected}
                tabbable={s.id === tabStop}
                onSelect={onSelect}
              />
            ))}
          </div>
        ))}
      </div>
      {rest > 0 ? (
        <PendingRows
          rows={rest}
          rowPx={ROW_PX}
          extraPx={(groups.length - visible.length) * GROUP_HEADER_PX}
          label={`Show the other ${rest} sessions`}
          more={more}
          showAll={showAll}
        />
      ) : null}
    </>
  );
});

/** A row's and a workspace heading's height, for the placeholder of the groups not rendered yet. */
const ROW_PX = 56;
const GROUP_HEADER_PX = 32;
