import { useDeferredValue, useMemo, useState } from 'react';
import type { SessionAttention } from '../../../../shared/attention';
import { EmptyState, Page } from '../../shell/Page';
import { useSelectedSession } from '../../shell/routes';
import { useAttention } from '../overview/use-attention';
import { AttemptsCompare, TryItForm } from './AttemptsPanel';
import { CreateSessionForm } from './CreateSessionForm';
import { SessionDetail } from './SessionDetail';
import { SessionFilters } from './SessionFilters';
import { ALL_SESSIONS, countByLevel, filterSessions, type SessionFilter } from './session-filter';
import { SessionList } from './SessionList';
import { useSessions } from './use-sessions';
import './sessions.css';
import { ErrorBanner } from '../../shell/ErrorBanner';
import { isPhoneOrigin } from '../../phone/phone-mode';

const NOT_ROLLED_UP: ReadonlyMap<string, SessionAttention> = new Map();

/**
 * The sessions, list and selected session side by side (stacked on a narrow window): the list with
 * its filters on the left, the selected session's terminal, permission requests, send box, push and
 * changes on the right. The URL names the selected session (`#/sessions/<id>`), so the Overview, the
 * tray and a notification open it here.
 */
export function SessionsPage() {
  const sessions = useSessions();
  const list = sessions.data?.sessions ?? [];
  const [selected, select] = useSelectedSession();
  const [filter, setFilter] = useState<SessionFilter>(ALL_SESSIONS);
  const fleet = useAttention().data;
  const rolledUp = useMemo(
    () => (fleet ? new Map(fleet.sessions.map((i) => [i.sessionId, i])) : NOT_ROLLED_UP),
    [fleet],
  );
  const shown = useMemo(() => filterSessions(list, filter, rolledUp), [list, filter, rolledUp]);
  const counts = useMemo(() => countByLevel(list, rolledUp), [list, rolledUp]);
  // The selected session stays open when a filter hides its row. The detail follows the selection
  // at a lower priority, so holding ↓ moves the list at once and mounts no terminal per row passed.
  const detailId = useDeferredValue(selected);
  const current = list.find((s) => s.id === detailId) ?? null;
  const names = [...new Set(list.map((s) => s.workspaceName))].join('\n');
  // Rebuilt only when the set of workspace names changes, not on every pushed session change.
  const form = useMemo(() => <CreateSessionForm knownWorkspaces={names ? names.split('\n') : []} />, [names]);
  return (
    <Page title="Sessions" className="sessions-page">
      {/* Creating sessions stays on the computer (no route on the public origin). */}
      {isPhoneOrigin() ? null : (
        <details className="session-create-toggle">
          <summary>New session</summary>
          {form}
        </details>
      )}
      {isPhoneOrigin() ? null : (
        <details className="session-create-toggle">
          <summary>Try it N ways</summary>
          <TryItForm knownWorkspaces={names ? names.split('\n') : []} />
        </details>
      )}
      <AttemptsCompare />
      <ErrorBanner error={sessions.error} />
      <div className="sessions-split">
        <div className="session-list-pane">
          <SessionFilters filter={filter} counts={counts} total={list.length} onChange={setFilter} />
          {list.length === 0 && !sessions.isLoading ? (
            <EmptyState title="No sessions yet">
              <p>Sessions run the coding agent inside a workspace, one git worktree each.</p>
            </EmptyState>
          ) : null}
          {list.length > 0 && shown.length === 0 ? (
            <p className="muted" data-testid="no-match">
              No session matches.
            </p>
          ) : null}
          <SessionList sessions={shown} selected={selected} onSelect={select} />
        </div>
        <div className="session-detail-pane">
          {current ? (
            <SessionDetail key={current.id} session={current} />
          ) : (
            <EmptyState title={detailId && !sessions.isLoading ? 'No such session' : 'No session selected'}>
              <p>Choose one in the list; ↑ and ↓ (or j and k) move through it.</p>
            </EmptyState>
          )}
        </div>
      </div>
    </Page>
  );
}
