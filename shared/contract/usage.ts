import { z } from 'zod';
import { operation } from './define';
import { SessionRef } from './sessions';
import { WorkspaceRef } from './workspaces';

/** Tokens the model gateway counted from the providers' own answers (docs/gateway.md). */
export const UsageTotals = z.object({
  requests: z.number().int().nonnegative(),
  input: z.number().int().nonnegative(),
  output: z.number().int().nonnegative(),
  cacheWrite: z.number().int().nonnegative(),
  cacheRead: z.number().int().nonnegative(),
  /** All four together: what a token budget counts. */
  total: z.number().int().nonnegative(),
});
export type UsageTotals = z.infer<typeof UsageTotals>;

export const BudgetScope = z.enum(['session', 'workspace', 'day']);

/** A token cap and what is used of it. */
export const Budget = z.object({ scope: BudgetScope, maxTokens: z.number().int().positive(), used: z.number().int() });

/** USD per million tokens: a list price is a few dollars to a few hundred; more than 10,000 is a typo. */
const UsdPerMillion = z.number().finite().nonnegative().max(10_000);

/** What a model's tokens cost, USD per million of each kind the ledger counts. */
export const TokenPrice = z
  .object({
    input: UsdPerMillion.describe('USD per million input tokens (not cached)'),
    output: UsdPerMillion.describe('USD per million output tokens'),
    cacheWrite: UsdPerMillion.describe('USD per million tokens written to the prompt cache'),
    cacheRead: UsdPerMillion.describe('USD per million tokens read from the prompt cache'),
  })
  .strict();
export type TokenPrice = z.infer<typeof TokenPrice>;

/**
 * Which models a price row is for: the model name the provider reports (exact), or a prefix ending in `*`
 * (`claude-sonnet-4-5*`). A name with a release date at its end (`-20250929`, `-2025-08-07`) also matches the row
 * without it. Exact wins over prefix, the longest prefix over shorter ones (docs/gateway.md, "Prices").
 */
export const ModelPattern = z
  .string()
  .trim()
  .min(1)
  .max(100)
  .regex(
    /^[A-Za-z0-9][A-Za-z0-9._:/@-]*\*?$/,
    'a model name (letters, digits, . _ : / @ -), a trailing * for a prefix',
  );

/** One row of the price table: a shipped list price, or the operator's own (which wins over the list's). */
export const ModelPrice = TokenPrice.extend({
  model: z.string(),
  origin: z.enum(['list', 'operator']),
  /** Where the list price was published, and when it was read (a list row; an operator's row that replaced one). */
  source: z.string().nullable(),
  asOf: z.string().nullable(),
  /** The shipped list price an operator's row replaces, if any. */
  listPrice: TokenPrice.nullable(),
});
export type ModelPrice = z.infer<typeof ModelPrice>;

/**
 * Money for the counted tokens at the price table's prices: an estimate (list prices, no discounts, no tiers); the
 * tokens are exact. Tokens of a model the table has no price for are counted in the totals and left out of `usd`.
 */
export const UsageEstimate = z.object({
  usd: z.number().nonnegative(),
  /** Models with counted tokens and no price ("(not named)" when the provider named none). */
  unpricedModels: z.array(z.string()),
  /** Tokens of those models (all four counts). */
  unpricedTokens: z.number().int().nonnegative(),
});
export type UsageEstimate = z.infer<typeof UsageEstimate>;

export const UsageReport = z.object({
  /** The session's, the workspace's or today's (UTC) totals, as asked. */
  totals: UsageTotals,
  /** What those tokens cost at the price table's prices: an estimate. */
  estimate: UsageEstimate,
  /** The caps that count this scope's requests (a session's: its own, its workspace's, the day's). */
  budgets: z.array(Budget),
});

/** One session's tokens and estimate (the session list, `nexus ls`). */
export const SessionUsage = z.object({ sessionId: z.string(), totals: UsageTotals, estimate: UsageEstimate });
export type SessionUsage = z.infer<typeof SessionUsage>;

/** A session's usage, else a workspace's, else (neither named) today's. */
const UsageScope = z
  .object({
    session: SessionRef.optional().describe("A session's usage"),
    workspace: WorkspaceRef.optional().describe("A workspace's usage (when no session is named)"),
  })
  .strict();

export const usageOperations = {
  'usage.get': operation({
    summary:
      'Model tokens the gateway counted (input, output, cache write, cache read) for a session, a workspace or today, ' +
      'and the budgets that apply.',
    access: 'read',
    // Token counts, no content: a delegated credential may read them as it reads the fleet summary (get_nexus_info).
    delegated: 'fleet-wide',
    phone: true,
    audit: 'dispatcher',
    input: UsageScope,
    output: UsageReport,
  }),
  'usage.setBudget': operation({
    summary:
      'Set a token cap for a session, a workspace or each day (null removes it). At the cap the gateway refuses the ' +
      'next model request with a message the agent shows; raising it lets the session go on.',
    access: 'operator',
    delegated: 'refused',
    phone: false,
    audit: 'dispatcher',
    input: z
      .object({
        scope: z.union([
          z.object({ session: SessionRef }).strict(),
          z.object({ workspace: WorkspaceRef }).strict(),
          z.object({ day: z.literal('each') }).strict(),
        ]),
        maxTokens: z.number().int().positive().max(1e12).nullable(),
      })
      .strict(),
    output: UsageReport,
  }),
  'usage.sessions': operation({
    summary: "Every session's model tokens and their estimated cost (USD, at the price table's prices).",
    access: 'read',
    delegated: 'fleet-wide',
    phone: true,
    audit: 'dispatcher',
    input: z.object({}).strict(),
    output: z.object({ sessions: z.array(SessionUsage) }),
  }),
  'usage.prices': operation({
    summary:
      'The price table the usage estimate uses: USD per million input, output, cache-write and cache-read tokens ' +
      "per model (shipped list prices with their source and date, and the operator's own).",
    access: 'read',
    delegated: 'fleet-wide',
    phone: true,
    audit: 'dispatcher',
    input: z.object({}).strict(),
    output: z.object({ prices: z.array(ModelPrice) }),
  }),
  'usage.setPrice': operation({
    summary:
      "Set a model's price (USD per million tokens of each kind) for the usage estimate; null removes the operator's " +
      'row (the shipped list price, if any, applies again).',
    access: 'operator',
    delegated: 'refused',
    phone: false,
    audit: 'dispatcher',
    input: z.object({ model: ModelPattern, price: TokenPrice.nullable() }).strict(),
    output: z.object({ prices: z.array(ModelPrice) }),
  }),
  'usage.export': operation({
    summary:
      'The usage ledger as CSV: one row per session and UTC day (workspace, session, agent kind, task, day, the four ' +
      'token counts, requests, estimated USD, whether every model had a price).',
    access: 'read',
    // Names every workspace's sessions and tasks: the operator's, not a workspace's delegated credential's.
    delegated: 'refused',
    phone: true,
    audit: 'dispatcher',
    input: z.object({}).strict(),
    output: z.object({ csv: z.string(), rows: z.number().int().nonnegative(), filename: z.string() }),
  }),
};

export const usageEvents = {
  /** The ledger or a budget of this scope changed. */
  'usage.changed': z.object({ scope: BudgetScope, scopeId: z.string() }),
};
