import { z } from 'zod';
import { operation } from './define';
import { Actor } from './platform';

/** Who proposed an item and when (provenance shown in the review queue). */
export const Provenance = Actor.extend({
  runId: z.string().nullable(),
  proposedAt: z.string(),
});

export const ScanFinding = z.object({
  rule: z.string(),
  message: z.string(),
  excerpt: z.string(),
  line: z.number().int(),
});

export const PendingMemory = z.object({
  id: z.string(),
  content: z.string(),
  scope: z.enum(['global', 'project', 'private']),
  project: z.string().nullable(),
  /** The project's workspace name, when the project is a workspace. */
  projectName: z.string().nullable(),
  provenance: Provenance,
});
export type PendingMemory = z.infer<typeof PendingMemory>;

export const DraftSkill = z.object({
  id: z.string(),
  slug: z.string(),
  version: z.number().int(),
  name: z.string(),
  description: z.string(),
  markdown: z.string(),
  findings: z.array(ScanFinding),
  /** The version currently active for this slug, if any (what approving would supersede). */
  activeVersion: z.number().int().nullable(),
  provenance: Provenance,
});
export type DraftSkill = z.infer<typeof DraftSkill>;

export const ReviewCounts = z.object({
  pendingMemories: z.number().int().nonnegative(),
  draftSkills: z.number().int().nonnegative(),
});
export type ReviewCounts = z.infer<typeof ReviewCounts>;

const ItemId = z.string().min(1).max(100);
const Reason = z.string().trim().min(1).max(2_000);
const decided = z.object({ id: z.string(), status: z.string() });

export const reviewOperations = {
  'review.list': operation({
    summary: 'The review queue: pending memories and draft skills with provenance and scanner findings.',
    access: 'operator',
    delegated: 'refused',
    phone: true,
    audit: 'dispatcher',
    input: z.object({}).strict(),
    output: z.object({ memories: z.array(PendingMemory), skills: z.array(DraftSkill), counts: ReviewCounts }),
  }),
  'review.counts': operation({
    summary: 'How many memories and skills wait for review.',
    access: 'read',
    delegated: 'refused',
    phone: true,
    audit: 'dispatcher',
    input: z.object({}).strict(),
    output: ReviewCounts,
  }),
  'review.approveMemory': operation({
    summary: 'Approve a pending memory, optionally after editing its text; it becomes searchable.',
    access: 'operator',
    delegated: 'refused',
    phone: true,
    audit: 'service',
    input: z
      .object({
        id: ItemId,
        content: z.string().trim().min(1).max(10_000).optional().describe('Edited text, replacing the proposal'),
      })
      .strict(),
    output: decided,
  }),
  'review.rejectMemory': operation({
    summary: 'Reject a pending memory; it is never searchable.',
    access: 'operator',
    delegated: 'refused',
    phone: true,
    audit: 'service',
    input: z.object({ id: ItemId, reason: Reason.optional() }).strict(),
    output: decided,
  }),
  'review.approveSkill': operation({
    summary:
      'Approve a draft skill (it supersedes the active version). A flagged draft needs an override with a ' +
      'reason, recorded in the audit log.',
    access: 'operator',
    delegated: 'refused',
    phone: true,
    audit: 'service',
    input: z.object({ id: ItemId, override: z.object({ reason: Reason }).strict().optional() }).strict(),
    output: decided,
  }),
  'review.rejectSkill': operation({
    summary: 'Reject a draft skill.',
    access: 'operator',
    delegated: 'refused',
    phone: true,
    audit: 'service',
    input: z.object({ id: ItemId, reason: Reason.optional() }).strict(),
    output: decided,
  }),
};

export const reviewEvents = {
  /** The review queue changed (a proposal arrived or a decision was made). */
  'review.changed': ReviewCounts,
};
