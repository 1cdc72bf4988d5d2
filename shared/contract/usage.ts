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

export const UsageReport = z.object({
  /** The session's, the workspace's or today's (UTC) totals, as asked. */
  totals: UsageTotals,
  /** The caps that count this scope's requests (a session's: its own, its workspace's, the day's). */
  budgets: z.array(Budget),
});

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
    // Token counts, no content: a fleet credential may read them as it reads the fleet summary (get_nexus_info).
    fleet: 'fleet-wide',
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
    fleet: 'refused',
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
};

export const usageEvents = {
  /** The ledger or a budget of this scope changed. */
  'usage.changed': z.object({ scope: BudgetScope, scopeId: z.string() }),
};
