import { memo } from 'react';
import { agentReason } from '../../../../shared/attention-words';
import type { Session } from '../../../../shared/contract/sessions';
import type { SelectHow } from './session-filter';
import { Banner } from '../../shell/ErrorBanner';
import { SessionUsage } from './SessionUsage';
import { StateChip } from './StateChip';
import { useAgentLabel } from './agent-label';

/** Why a session needs the operator, in the Overview's words; else what its agent last said. */
function detailOf(s: Session): string | null {
  const waiting = s.agentState === 'waiting_permission' || s.agentState === 'waiting_input';
  if (s.status === 'running' && waiting) return agentReason(s.agentState, s.agentMessage);
  return s.agentMessage;
}

/** One session in the list: an option of the listbox, selected by a click or the keyboard. */
export const SessionRow = memo(function SessionRow({
  session,
  selected,
  tabbable,
  onSelect,
}: {
  session: Session;
  selected: boolean;
  tabbable: boolean;
  onSelect(id: string, how: SelectHow): void;
}) {
  const detail = detailOf(session);
  const agentLabel = useAgentLabel();
  return (
    <div
      role="option"
      className="session-row"
      data-session={session.name}
      data-session-id={session.id}
      aria-selected={selected}
      tabIndex={tabbable ? 0 : -1}
      onClick={() => onSelect(session.id, 'push')}
    >
      <div className="session-row-head">
        <strong className="session-name">{session.name}</strong>
        <StateChip session={session} />
      </div>
      <div className="session-row-detail muted">
        <span data-testid="session-agent">{agentLabel(session.agent)}</span> · {session.branch}
        <SessionUsage sessionId={session.id} />
        {detail ? <span data-testid="session-detail"> — {detail}</span> : null}
      </div>
      {session.status === 'error' && session.reason ? (
        <Banner tone="bad" note>
          {session.reason}
        </Banner>
      ) : null}
      {session.toolsReason ? (
        <p className="muted" data-testid="tools-reason">
          {session.toolsReason}
        </p>
      ) : null}
    </div>
  );
});
