import { agentStateWords, limitedReason, sessionStatusWords } from '../../../../shared/attention-words';
import type { Session } from '../../../../shared/contract/sessions';

const tones: Record<Session['agentState'], string> = {
  starting: 'tone-warn',
  working: 'tone-ok',
  waiting_permission: 'tone-bad',
  waiting_input: 'tone-bad',
  idle: '',
  exited: 'tone-warn',
};

/** The session's status while it is not running, else what its agent is doing (from hooks), in shared words. */
export function StateChip({ session }: { session: Session }) {
  if (session.status !== 'running') {
    const tone = session.status === 'error' ? 'tone-bad' : 'tone-warn';
    return (
      <span
        className={`chip ${tone}`}
        data-testid="session-state"
        data-status={session.status}
        title={session.reason ?? undefined}
      >
        {sessionStatusWords[session.status]}
      </span>
    );
  }
  if (session.limitedUntil && session.agentState !== 'waiting_permission')
    return (
      <span
        className="chip tone-warn"
        data-testid="session-state"
        data-state="limited"
        title="The model provider's usage limit: Nexus resumes the session when it resets."
      >
        {limitedReason(session.limitedUntil)}
      </span>
    );
  return (
    <span
      className={`chip ${tones[session.agentState]}`}
      data-testid="session-state"
      data-state={session.agentState}
      title={session.agentMessage ?? undefined}
    >
      {agentStateWords[session.agentState]}
    </span>
  );
}
