import { z } from 'zod';
import { operation } from './define';

/**
 * Activity (docs/security.md): the audit log made visible. Only who did what, to what, and how it ended —
 * never the input or the result of a call.
 */
/** Who called: the operator, an MCP token (or a workspace's delegated credential), a connector's OAuth grant, nobody known. */
export const CallerKind = z.enum(['operator', 'token', 'connector', 'anonymous', 'other']);
export type CallerKind = z.infer<typeof CallerKind>;

export const ActivityCaller = z.object({
  kind: CallerKind,
  /** The token's or grant's id (null for the operator and anonymous callers). */
  id: z.string().nullable(),
  /** The token's or connector's name when it is known. */
  name: z.string().nullable(),
});
export type ActivityCaller = z.infer<typeof ActivityCaller>;

export const ActivityEntry = z.object({
  id: z.number().int(),
  at: z.string(),
  caller: ActivityCaller,
  transport: z.string(),
  operation: z.string(),
  /** What the call was about when the recorder said (e.g. `session:<id>`), short. */
  target: z.string().nullable(),
  outcome: z.string(),
  durationMs: z.number(),
});
export type ActivityEntry = z.infer<typeof ActivityEntry>;

export const ACTIVITY_PAGE = 50;

export const activityOperations = {
  'activity.list': operation({
    summary: 'The audit log, newest first, paged: caller, operation, target and outcome (never inputs or results).',
    access: 'operator',
    delegated: 'refused',
    phone: false,
    audit: 'dispatcher',
    input: z
      .object({
        caller: z
          .object({ kind: CallerKind, id: z.string().min(1).max(200).optional() })
          .strict()
          .optional()
          .describe('Only this kind of caller, or this one token or grant'),
        operation: z.string().max(100).optional().describe('Operation name, or its prefix (e.g. "mcp:")'),
        outcome: z.string().max(40).optional().describe('"ok" or an error code'),
        before: z.number().int().positive().optional().describe('Page on: the nextBefore of the previous page'),
        limit: z.number().int().min(1).max(200).default(ACTIVITY_PAGE),
      })
      .strict(),
    output: z.object({ entries: z.array(ActivityEntry), nextBefore: z.number().int().nullable() }),
  }),
};
