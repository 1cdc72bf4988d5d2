import type { ModelPrice, TokenPrice, UsageEstimate } from '../../../shared/contract/usage';

/** One model's token counts (the ledger aggregated per model in SQL); model null: the provider named none. */
export interface ModelTokens {
  model: string | null;
  input: number;
  output: number;
  cacheWrite: number;
  cacheRead: number;
}

/** The name the ledger uses for tokens whose answer named no model. */
export const NOT_NAMED = '(not named)';

/** A release date at the end of a model's name: `-20250929` (Anthropic), `-2025-08-07` (OpenAI). */
const DATED = /-(?:\d{8}|\d{4}-\d{2}-\d{2})$/;

/**
 * The price of the model a provider named: the row with its exact name, else the row of its name without a release
 * date at the end, else the longest prefix row (`name*`) it starts with; null when none: never a guess.
 */
export function priceOf(model: string | null, table: readonly ModelPrice[]): ModelPrice | null {
  if (!model) return null;
  const exact = new Map(table.filter((p) => !p.model.endsWith('*')).map((p) => [p.model, p]));
  const hit = exact.get(model) ?? exact.get(model.replace(DATED, ''));
  if (hit) return hit;
  let best: ModelPrice | null = null;
  for (const p of table) {
    if (!p.model.endsWith('*')) continue;
    const prefix = p.model.slice(0, -1);
    if (model.startsWith(prefix) && (!best || prefix.length > best.model.length - 1)) best = p;
  }
  return best;
}

/** USD for these counts at this price. */
export const costOf = (t: Omit<ModelTokens, 'model'>, p: TokenPrice): number =>
  (t.input * p.input + t.output * p.output + t.cacheWrite * p.cacheWrite + t.cacheRead * p.cacheRead) / 1e6;

const tokensOf = (t: ModelTokens): number => t.input + t.output + t.cacheWrite + t.cacheRead;

/** The estimate for per-model counts: money for the priced ones, and which models (and how many tokens) had none. */
export function estimateOf(perModel: readonly ModelTokens[], table: readonly ModelPrice[]): UsageEstimate {
  let usd = 0;
  let unpricedTokens = 0;
  const unpriced = new Set<string>();
  for (const t of perModel) {
    const price = priceOf(t.model, table);
    if (price) usd += costOf(t, price);
    else if (tokensOf(t) > 0) {
      unpriced.add(t.model ?? NOT_NAMED);
      unpricedTokens += tokensOf(t);
    }
  }
  return { usd: Math.round(usd * 1e6) / 1e6, unpricedModels: [...unpriced].sort(), unpricedTokens };
}
