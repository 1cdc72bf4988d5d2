import { z } from 'zod';
import { FleetAttention, ReviewCounts, SessionAttention } from '../attention';
import { operation } from './define';

const Tally = z.record(z.string(), z.number().int().nonnegative());

/** The fleet at a glance, from the cached roll-up: counts, what needs the operator and why; no per-session list. */
export const FleetSummary = z.object({
  counts: FleetAttention.shape.counts,
  needsYou: z.array(SessionAttention),
  review: ReviewCounts,
  workspaces: z.object({
    total: z.number().int().nonnegative(),
    byStatus: Tally,
    /** Sessions per workspace name (for quota checks). */
    sessions: Tally,
  }),
});
export type FleetSummary = z.infer<typeof FleetSummary>;

export const SessionPage = z.object({
  sessions: z.array(SessionAttention),
  total: z.number().int().nonnegative(),
  /** Pass back as `cursor` for the next page; null on the last page. */
  nextCursor: z.string().nullable(),
});
export type SessionPage = z.infer<typeof SessionPage>;

export const attentionOperations = {
  'attention.get': operation({
    summary:
      'The fleet attention roll-up: what needs the operator (oldest first), what works, what idles, what ' +
      'is offline, and review-queue counts.',
    access: 'read',
    delegated: 'refused',
    phone: true,
    audit: 'dispatcher',
    input: z.object({}).strict(),
    output: FleetAttention,
  }),
  'attention.summary': operation({
    summary:
      'The fleet at a glance: attention counts, the sessions that need the operator with reasons, ' +
      'review-queue counts, workspaces by status and sessions per workspace.',
    access: 'read',
    delegated: 'fleet-wide',
    phone: true,
    audit: 'dispatcher',
    input: z.object({}).strict(),
    output: FleetSummary,
  }),
  'attention.sessions': operation({
    summary: 'One page of the per-session attention roll-up (level, reason, since), in roll-up order.',
    access: 'read',
    delegated: 'fleet-wide',
    phone: true,
    audit: 'dispatcher',
    input: z
      .object({
        cursor: z.string().max(20).optional().describe('nextCursor from the previous page'),
        limit: z.number().int().min(1).max(200).default(50),
      })
      .strict(),
    output: SessionPage,
  }),
};

export const attentionEvents = {
  'attention.changed': FleetAttention,
};
