import { useState } from 'react';
import type { Session } from '../../../../shared/contract/sessions';
import { useBoard } from '../board/use-board';
import { AutoDecisions } from '../permissions/AutoDecisions';
import { PendingPermissions } from '../permissions/PendingPermissions';
import { useSessionPermissions } from '../permissions/use-permissions';
import { ChangesPanel } from './ChangesPanel';
import { RadarPanel } from './RadarPanel';
import { TurnsPanel } from './TurnsPanel';
import { PreviewsPanel } from './PreviewsPanel';
import { SetupPanel } from './SetupPanel';
import { DeleteSessionButton } from './DeleteSessionDialog';
import { PaneView } from './PaneView';
import { PushPanel } from './PushPanel';
import { SendBox } from './SendBox';
import { StateChip } from './StateChip';
import { SessionTerminal } from './Terminal';
import { SessionViews } from './SessionViews';
import { useStructuredKind } from './use-transcript';
import { terminalTransport } from './terminal-transport';
import { useAgentLabel } from './agent-label';
import { UsageFacts } from './UsageFacts';
import { isPhoneOrigin } from '../../phone/phone-mode';

/**
 * The selected session: its pending requests and live terminal first (in view), then send, push and changes. A kind
 * with structured updates shows its structured view there instead, its terminal a tab beside it (SessionViews).
 */
export function SessionDetail({ session }: { session: Session }) {
  const [transport] = useState(terminalTransport);
  const agentLabel = useAgentLabel();
  const requests = useSessionPermissions(session.id);
  // On the phone, deleting and pushing stay on the computer (no route on the public origin).
  const onPhone = isPhoneOrigin();
  // A kind with structured updates: that view is the main panel and its window a plain log beside it.
  const structured = useStructuredKind(session);
  const log =
    transport && session.status === 'running' ? (
      <SessionTerminal sessionId={session.id} transport={transport} />
    ) : (
      <PaneView sessionId={session.id} />
    );
  return (
    <section className="session-detail" aria-label={`Session ${session.name}`}>
      <header className="session-detail-header">
        <h2>
          {session.workspaceName} · {session.name}{' '}
          <span className="muted" data-testid="session-detail-agent">
            ({agentLabel(session.agent)})
          </span>{' '}
          <StateChip session={session} />
        </h2>
        {onPhone ? null : <DeleteSessionButton session={session} />}
      </header>
      <UsageFacts scope={{ session: session.id }} label="Model use" />
      {session.taskId ? <SessionTask taskId={session.taskId} /> : null}
      {structured ? null : <PendingPermissions requests={requests} />}
      <AutoDecisions sessionId={session.id} />
      {structured ? <SessionViews session={session} requests={requests} log={log} /> : log}
      <SendBox sessionId={session.id} disabled={session.status !== 'running'} />
      {onPhone ? null : <PushPanel sessionId={session.id} disabled={session.status === 'creating'} />}
      <SetupPanel sessionId={session.id} canAct={session.status !== 'creating'} />
      <PreviewsPanel sessionId={session.id} running={session.status === 'running'} onPhone={onPhone} />
      <ChangesPanel sessionId={session.id} />
      <TurnsPanel sessionId={session.id} />
      <RadarPanel session={session} canLand={!onPhone} />
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
