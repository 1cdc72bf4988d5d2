import type { TokenPrice } from '../../../shared/contract/usage';

/** A shipped list price: the model pattern (exact, or a prefix ending in `*`), the prices, where and when read. */
export interface ListPrice extends TokenPrice {
  model: string;
  source: string;
  asOf: string;
}

/*
 * The list prices Nexus ships for the models its agent kinds use, USD per million tokens, as the providers publish
 * them for their own APIs (standard tier, no batch discount, no long-context tier). Written from the pages below as
 * they read in November 2025 (this machine has no internet: they were not read again when shipped); a price changes,
 * so each is the operator's to edit (usage.setPrice, Settings › Model prices). Where a provider bills no cache write
 * (OpenAI, Google: the ledger counts none for them), cacheWrite is the input price.
 */
const ANTHROPIC = 'https://docs.anthropic.com/en/docs/about-claude/pricing';
const OPENAI = 'https://openai.com/api/pricing/';
const GOOGLE = 'https://ai.google.dev/gemini-api/docs/pricing';
const AS_OF = '2025-11';

/** Anthropic: a cache write is the 5-minute write (1.25 × input), a cache read 0.1 × input. */
const anthropic = (model: string, input: number, output: number): ListPrice => ({
  model,
  input,
  output,
  cacheWrite: input * 1.25,
  cacheRead: input / 10,
  source: ANTHROPIC,
  asOf: AS_OF,
});

const openai = (model: string, input: number, output: number, cacheRead: number): ListPrice => ({
  model,
  input,
  output,
  cacheWrite: input,
  cacheRead,
  source: OPENAI,
  asOf: AS_OF,
});

const google = (model: string, input: number, output: number, cacheRead: number): ListPrice => ({
  model,
  input,
  output,
  cacheWrite: input,
  cacheRead,
  source: GOOGLE,
  asOf: AS_OF,
});

/*
 * Anthropic's dated ids (`claude-sonnet-4-5-20250929`) match their row with the date dropped; its aliases
 * (`claude-sonnet-4-0`, `claude-3-5-haiku-latest`) are rows of their own. No row is a bare family prefix: a newer
 * model of the family must not take an older one's price unnoticed (it shows as unknown until priced).
 */
export const LIST_PRICES: readonly ListPrice[] = [
  anthropic('claude-opus-4-5', 5, 25),
  anthropic('claude-opus-4-1', 15, 75),
  anthropic('claude-opus-4', 15, 75),
  anthropic('claude-opus-4-0', 15, 75),
  anthropic('claude-sonnet-4-5', 3, 15),
  anthropic('claude-sonnet-4', 3, 15),
  anthropic('claude-sonnet-4-0', 3, 15),
  anthropic('claude-3-7-sonnet', 3, 15),
  anthropic('claude-3-7-sonnet-latest', 3, 15),
  anthropic('claude-haiku-4-5', 1, 5),
  anthropic('claude-3-5-haiku', 0.8, 4),
  anthropic('claude-3-5-haiku-latest', 0.8, 4),
  anthropic('claude-3-haiku', 0.25, 1.25),
  openai('gpt-5.1', 1.25, 10, 0.125),
  openai('gpt-5.1-codex', 1.25, 10, 0.125),
  openai('gpt-5.1-codex-mini', 0.25, 2, 0.025),
  openai('gpt-5', 1.25, 10, 0.125),
  openai('gpt-5-codex', 1.25, 10, 0.125),
  openai('gpt-5-mini', 0.25, 2, 0.025),
  openai('gpt-5-nano', 0.05, 0.4, 0.005),
  openai('codex-mini-latest', 1.5, 6, 0.375),
  openai('gpt-4.1', 2, 8, 0.5),
  openai('gpt-4.1-mini', 0.4, 1.6, 0.1),
  openai('gpt-4.1-nano', 0.1, 0.4, 0.025),
  openai('gpt-4o', 2.5, 10, 1.25),
  openai('gpt-4o-mini', 0.15, 0.6, 0.075),
  openai('o3', 2, 8, 0.5),
  openai('o4-mini', 1.1, 4.4, 0.275),
  google('gemini-2.5-pro', 1.25, 10, 0.125),
  google('gemini-2.5-flash', 0.3, 2.5, 0.03),
  google('gemini-2.5-flash-lite', 0.1, 0.4, 0.01),
  google('gemini-2.0-flash', 0.1, 0.4, 0.025),
];
