import type { UsageEstimate } from './contract/usage';

/** A dollar amount of an estimate: cents, or "< $0.01" for a little more than nothing. */
export const usd = (n: number): string => (n > 0 && n < 0.005 ? '< $0.01' : `$${n.toFixed(2)}`);

/** A token count for a narrow column: 950, 12.3k, 4.1M. */
export function tokensShort(n: number): string {
  if (n < 1000) return String(n);
  if (n < 1e6) return `${(n / 1e3).toFixed(n < 1e4 ? 1 : 0)}k`;
  return `${(n / 1e6).toFixed(n < 1e7 ? 1 : 0)}M`;
}

/**
 * The estimate as every surface says it (app, phone, CLI, MCP): "≈ $1.23 (estimate)", and when a model had no price
 * "≈ $1.23 (estimate; no price for mystery-1: 520 tokens not in it)". Money is always called an estimate; tokens are
 * exact (docs/gateway.md, "Prices").
 */
export function estimateWords(e: UsageEstimate): string {
  if (e.unpricedModels.length === 0) return `≈ ${usd(e.usd)} (estimate)`;
  return (
    `≈ ${usd(e.usd)} (estimate; no price for ${e.unpricedModels.join(', ')}: ` +
    `${e.unpricedTokens.toLocaleString('en-US')} tokens not in it)`
  );
}

/** The estimate in a few characters (a list row): "≈$1.23", with "+?" when a model had no price. */
export const estimateShort = (e: UsageEstimate): string =>
  `${e.usd > 0 && e.usd < 0.005 ? '<$0.01' : `≈$${e.usd.toFixed(2)}`}${e.unpricedModels.length > 0 ? '+?' : ''}`;
