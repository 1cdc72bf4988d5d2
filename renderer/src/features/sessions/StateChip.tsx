import type { Session } from '../../../../shared/contract/sessions';

const labels: Record<Session['agentState'], [string, string]> = {
  starting: ['starting', 'tone-warn'],
  working: ['working', 'tone-ok'],
  waiting_permission: ['needs permission', 'tone-bad'],
  waiting_input: ['waiting for input', 'tone-bad'],
  idle: ['idle', ''],
  exited: ['exited', 'tone-warn'],
};

/** The session's status while it is not running, else what its agent is doing (from hooks). */
export function StateChip({ session }: { session: Session }) {
  if (session.status !== 'running') {
    const tone = session.status === 'error' ? 'tone-bad' : 'tone-warn';
    return (
      <span className={`chip ${tone}`} data-testid="session-state" title={session.reason ?? undefined}>
        {session.status}
      </span>
    );
  }
  const [label, tone] = labels[session.agentState];
  return (
    <span
      className={`chip ${tone}`}
      data-testid="session-state"
      data-state={session.agentState}
      title={session.agentMessage ?? undefined}
    >
      {label}
    </span>
  );
}
