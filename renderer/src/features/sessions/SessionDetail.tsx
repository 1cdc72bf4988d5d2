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
import { DeleteSessionButton } from './DeleteSessionDialog';
import { PaneView } from './PaneView';
import { PushPanel } from './PushPanel';
import { SendBox } from './SendBox';
import { StateChip } from './StateChip';
import { SessionTerminal } from './Terminal';
import { terminalTransport } from './terminal-transport';
import { useAgentLabel } from './agent-label';
import { UsageFacts } from './UsageFacts';
import { isPhoneOrigin } from '../../phone/phone-mode';

/** The selected session: its pending requests and live terminal first (in view), then send, push and changes. */
export function SessionDetail({ session }: { session: Session }) {
  const [transport] = useState(terminalTransport);
  const agentLabel = useAgentLabel();
  const requests = useSessionPermissions(session.id);
  // On the phone, deleting and pushing stay on the computer (no route on the public origin).
  const onPhone = isPhoneOrigin();
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
      <PendingPermissions requests={requests} />
      <AutoDecisions sessionId={session.id} />
      {transport && session.status === 'running' ? (
        <SessionTerminal sessionId={session.id} transport={transport} />
      ) : (
        <PaneView sessionId={session.id} />
      )}
      <SendBox sessionId={session.id} disabled={session.status !== 'running'} />
      {onPhone ? null : <PushPanel sessionId={session.id} disabled={session.status === 'creating'} />}
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
