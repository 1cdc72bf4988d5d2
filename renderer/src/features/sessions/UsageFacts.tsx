import type { OpInput } from '../../../../shared/contract';
import { estimateWords } from '../../../../shared/usage-words';
import { useOpQuery } from '../../api/use-op-query';

/** How often the tokens are read again while shown (the ledger grows with every model answer). */
export const USAGE_REFRESH_MS = 5_000;

const count = (n: number): string => n.toLocaleString('en-US');

/**
 * Tokens the model gateway counted for a session, a workspace or today, what they cost at the price table's prices
 * (an estimate, said so), and the caps that apply (docs/gateway.md). Tokens are exact: the providers' own counts.
 */
export function UsageFacts({ scope, label }: { scope: OpInput<'usage.get'>; label: string }) {
  const usage = useOpQuery('usage.get', scope, { refetchInterval: USAGE_REFRESH_MS }).data;
  if (!usage) return null;
  const { totals, budgets, estimate } = usage;
  return (
    <p className="usage-facts muted" data-testid="usage-facts" aria-label={label}>
      {label}: {count(totals.total)} tokens ({count(totals.input)} in, {count(totals.output)} out
      {totals.cacheRead + totals.cacheWrite > 0
        ? `, ${count(totals.cacheRead)} cache read, ${count(totals.cacheWrite)} cache write`
        : ''}
      ) in {count(totals.requests)} model requests,{' '}
      <span data-testid="usage-estimate" title="At the price table's prices (Settings › Model prices)">
        {estimateWords(estimate)}
      </span>
      {budgets.map((b) => (
        <span key={b.scope} data-testid={`budget-${b.scope}`}>
          {' '}
          · {b.scope} cap {count(b.maxTokens)}
          {b.used >= b.maxTokens ? ' — reached' : ''}
        </span>
      ))}
    </p>
  );
}
