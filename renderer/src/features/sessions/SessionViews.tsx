import { useState, type KeyboardEvent, type ReactNode } from 'react';
import type { PermissionRequest } from '../../../../shared/contract/permissions';
import type { Session } from '../../../../shared/contract/sessions';
import { PendingPermissions } from '../permissions/PendingPermissions';
import { StructuredView } from './StructuredView';
import { inlineRequestIds } from './transcript-words';
import { useTranscript } from './use-transcript';

type Tab = 'view' | 'log';
const TABS: { id: Tab; label: string }[] = [
  { id: 'view', label: 'Structured view' },
  { id: 'log', label: 'Plain log' },
];

/**
 * The main panel of a session whose kind reports structured updates: its structured view, and its window (a plain
 * log, not the agent's UI) as a second tab. A permission request shows on its item in the view; one the view does
 * not hold (or all, on the log tab) stays above, as on every other session.
 */
export function SessionViews({
  session,
  requests,
  log,
}: {
  session: Session;
  requests: readonly PermissionRequest[];
  /** The session's window: its live terminal, or the captured pane. */
  log: ReactNode;
}) {
  const [tab, setTab] = useState<Tab>('view');
  const items = useTranscript(session.id).data?.items ?? [];
  const inline = tab === 'view' ? inlineRequestIds(items) : new Set<string>();
  const above = requests.filter((r) => !inline.has(r.id));
  const id = (t: Tab, part: 'tab' | 'panel'): string => `session-${session.id}-${t}-${part}`;
  const move = (e: KeyboardEvent): void => {
    if (e.key !== 'ArrowLeft' && e.key !== 'ArrowRight') return;
    const next: Tab = tab === 'view' ? 'log' : 'view';
    setTab(next);
    document.getElementById(id(next, 'tab'))?.focus();
  };
  return (
    <>
      <PendingPermissions requests={above} />
      <div className="session-view-tabs" role="tablist" aria-label="Session views" onKeyDown={move}>
        {TABS.map((t) => (
          <button
            key={t.id}
            type="button"
            role="tab"
            id={id(t.id, 'tab')}
            aria-selected={tab === t.id}
            aria-controls={id(t.id, 'panel')}
            tabIndex={tab === t.id ? 0 : -1}
            onClick={() => setTab(t.id)}
          >
            {t.label}
          </button>
        ))}
      </div>
      <div role="tabpanel" id={id(tab, 'panel')} aria-labelledby={id(tab, 'tab')} className="session-view-panel">
        {tab === 'view' ? <StructuredView session={session} requests={requests} /> : log}
      </div>
    </>
  );
}
