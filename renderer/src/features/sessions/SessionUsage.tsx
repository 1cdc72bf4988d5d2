import type { OpOutput } from '../../../../shared/contract';
import type { SessionUsage as Usage } from '../../../../shared/contract/usage';
import { estimateShort, estimateWords, tokensShort } from '../../../../shared/usage-words';
import { useOpQuery } from '../../api/use-op-query';
import { USAGE_REFRESH_MS } from './UsageFacts';

/** Each answer's sessions by id, made once per answer however many rows read it. */
const indexed = new WeakMap<OpOutput<'usage.sessions'>, Map<string, Usage>>();

/** Every session's usage, by session id: one query for the whole list (react-query shares it between rows). */
export function useSessionsUsage(): Map<string, Usage> | undefined {
  const data = useOpQuery('usage.sessions', {}, { refetchInterval: USAGE_REFRESH_MS }).data;
  if (!data) return undefined;
  let byId = indexed.get(data);
  if (!byId) indexed.set(data, (byId = new Map(data.sessions.map((s) => [s.sessionId, s]))));
  return byId;
}

/** A session row's tokens and estimate ("12k tok · ≈$0.42"); nothing before its first model answer. */
export function SessionUsage({ sessionId }: { sessionId: string }) {
  const usage = useSessionsUsage()?.get(sessionId);
  if (!usage) return null;
  return (
    <span
      className="session-usage"
      data-testid="session-usage"
      title={
        `${usage.totals.total.toLocaleString('en-US')} tokens in ${usage.totals.requests} model requests, ` +
        estimateWords(usage.estimate)
      }
    >
      {' '}
      · {tokensShort(usage.totals.total)} tok · {estimateShort(usage.estimate)}
    </span>
  );
}
