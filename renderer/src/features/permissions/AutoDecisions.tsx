import { useMutation } from '@tanstack/react-query';
import { useApi } from '../../api/context';
import { useOpQuery } from '../../api/use-op-query';
import { ErrorBanner } from '../../shell/ErrorBanner';

const time = (iso: string): string =>
  new Date(iso).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit', second: '2-digit' });

/**
 * What the approval rules decided for a session without asking: how many asks they saved, and each decision with
 * the rule that made it ("auto-allowed: rule …"), a rule of the operator's revocable in one click. Kept live by
 * `rules.decided` (api/live-updates.ts).
 */
export function AutoDecisions({ sessionId }: { sessionId: string }) {
  const api = useApi();
  const q = useOpQuery('rules.decisions', { sessionId });
  const revoke = useMutation({ mutationFn: (id: string) => api['rules.remove']({ id }) });
  const data = q.data;
  if (!data || data.saved === 0) return <ErrorBanner error={q.error} />;
  return (
    <details className="auto-decisions" data-testid="auto-decisions">
      <summary>
        The rules saved {data.saved} ask{data.saved === 1 ? '' : 's'} in this session
      </summary>
      <ul className="list">
        {data.decisions.map((d, i) => (
          <li key={`${d.at}-${i}`} data-testid="auto-decision">
            <span className="muted">{time(d.at)}</span> auto-{d.decision === 'allow' ? 'allowed' : 'denied'}:{' '}
            <code>{d.summary}</code> — rule {d.rule}
            {d.ruleId.startsWith('default:') ? null : (
              <button type="button" disabled={revoke.isPending} onClick={() => revoke.mutate(d.ruleId)}>
                Revoke this rule
              </button>
            )}
          </li>
        ))}
      </ul>
      <ErrorBanner error={revoke.error} />
    </details>
  );
}
