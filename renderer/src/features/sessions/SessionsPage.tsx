import { useEffect, useMemo, useState } from 'react';
import type { Session } from '../../../../shared/contract/sessions';
import { EmptyState, Page } from '../../shell/Page';
import { useBoard } from '../board/use-board';
import { PendingPermissions } from '../permissions/PendingPermissions';
import { useSessionPermissions } from '../permissions/use-permissions';
import { ChangesPanel } from './ChangesPanel';
import { CreateSessionForm } from './CreateSessionForm';
import { DeleteSessionButton } from './DeleteSessionDialog';
import { PaneView } from './PaneView';
import { PushPanel } from './PushPanel';
import { SendBox } from './SendBox';
import { SessionTerminal } from './Terminal';
import { terminalTransport } from './terminal-transport';
import { SessionList } from './SessionList';
import { StateChip } from './StateChip';
import { useSessions } from './use-sessions';
import { ErrorBanner } from '../../shell/ErrorBanner';

/** Sessions per workspace with their agent state; the selected one shows its live terminal and a send box. */
export function SessionsPage() {
  const sessions = useSessions();
  const list = sessions.data?.sessions ?? [];
  const [selected, setSelected] = useState<string | null>(() => window.location.hash.split('/')[2] ?? null);
  // A link to #/sessions/<id> (Overview, tray, notification) selects that session, also when this page is open.
  useEffect(() => {
    const onHash = (): void => {
      const id = window.location.hash.split('/')[2];
      if (id) setSelected(id);
    };
    window.addEventListener('hashchange', onHash);
    return () => window.removeEventListener('hashchange', onHash);
  }, []);
  const current = list.find((s) => s.id === selected) ?? null;
  const names = [...new Set(list.map((s) => s.workspaceName))].join('\n');
  // Rebuilt only when the set of workspace names changes, not on every pushed session change.
  const form = useMemo(() => <CreateSessionForm knownWorkspaces={names ? names.split('\n') : []} />, [names]);
  return (
    <Page title="Sessions">
      {form}
      <ErrorBanner error={sessions.error} />
      {list.length === 0 && !sessions.isLoading ? (
        <EmptyState title="No sessions yet">
          <p>Sessions run the coding agent inside a workspace, one git worktree each.</p>
        </EmptyState>
      ) : null}
      <SessionList sessions={list} selected={selected} onSelect={setSelected} />
      {current ? <SessionDetail session={current} /> : null}
    </Page>
  );
}

function SessionDetail({ session }: { session: Session }) {
  const [transport] = useState(terminalTransport);
  const requests = useSessionPermissions(session.id);
  return (
    <section className="session-detail" aria-label={`Session ${session.name}`}>
      <h2>
        {session.workspaceName} · {session.name} <StateChip session={session} />
      </h2>
      {session.taskId ? <SessionTask taskId={session.taskId} /> : null}
      <PendingPermissions requests={requests} />
      <SendBox sessionId={session.id} disabled={session.status !== 'running'} />
      {transport && session.status === 'running' ? (
        <SessionTerminal sessionId={session.id} transport={transport} />
      ) : (
        <PaneView sessionId={session.id} />
      )}
      <PushPanel sessionId={session.id} disabled={session.status === 'creating'} />
      <ChangesPanel sessionId={session.id} />
      <DeleteSessionButton session={session} />
    </section>
  );
}

/** The task the session runs on (its Board card), by title. */
function SessionTask({ taskId }: { taskId: string }) {
  const task = useBoard().data?.tasks.find((t) => t.id === taskId);
  return task ? (
    <p>
      Runs on task: <a href="#/board">{task.title}</a>
    </p>
  ) : null;
}
