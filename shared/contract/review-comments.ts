import { z } from 'zod';
import { operation } from './define';
import { MessageDelivery, SessionRef } from './sessions';

/**
 * A comment of the operator on lines of a session's changed file (its worktree version). Drafts
 * collect as a review; `comments.send` delivers them to the agent as one message through the inbox
 * (never the terminal), so a comment can never answer a permission prompt.
 */
export const ReviewComment = z.object({
  id: z.string(),
  sessionId: z.string(),
  path: z.string(),
  startLine: z.number().int().positive(),
  endLine: z.number().int().positive(),
  /** The lines as they were when the comment was made (read from the worktree by Nexus). */
  quote: z.string(),
  body: z.string(),
  status: z.enum(['draft', 'sent']),
  sentAt: z.string().nullable(),
  /** After the agent's next turn following the send: whether those lines changed; null until then. */
  linesChanged: z.boolean().nullable(),
  createdAt: z.string(),
});
export type ReviewComment = z.infer<typeof ReviewComment>;

const CommentId = z.string().min(1).max(100);

export const reviewCommentOperations = {
  'comments.list': operation({
    summary:
      "A session's review comments on its diff lines: the drafts and those sent, with whether their lines changed.",
    access: 'read',
    delegated: 'refused',
    phone: true,
    audit: 'dispatcher',
    input: z.object({ session: SessionRef }).strict(),
    output: z.object({ sessionId: z.string(), comments: z.array(ReviewComment) }),
  }),
  'comments.add': operation({
    summary: 'Comment on lines of a changed file of a session (a draft until the review is sent).',
    access: 'operator',
    delegated: 'refused',
    phone: true,
    audit: 'dispatcher',
    input: z
      .object({
        session: SessionRef,
        path: z.string().min(1).max(4096).describe("A file in the session's worktree"),
        startLine: z.number().int().positive().max(10_000_000),
        endLine: z.number().int().positive().max(10_000_000).describe('At or after startLine, at most 500 lines on'),
        body: z.string().trim().min(1).max(20_000).describe('The comment for the agent'),
      })
      .strict(),
    output: ReviewComment,
  }),
  'comments.delete': operation({
    summary: 'Delete a draft review comment.',
    access: 'operator',
    delegated: 'refused',
    phone: true,
    audit: 'dispatcher',
    input: z.object({ id: CommentId }).strict(),
    output: z.object({ deleted: z.literal(true), id: z.string() }),
  }),
  'comments.send': operation({
    summary:
      "Send a session's draft comments to its agent as one message (each with file, line range and the quoted code) " +
      'through its inbox; a message never answers a permission prompt.',
    access: 'operator',
    delegated: 'refused',
    phone: true,
    audit: 'dispatcher',
    input: z.object({ session: SessionRef }).strict(),
    output: z.object({
      sessionId: z.string(),
      sent: z.number().int().nonnegative(),
      status: MessageDelivery,
      note: z.string(),
    }),
  }),
};

export const reviewCommentEvents = {
  /** A session's review comments changed (added, deleted, sent, their lines looked at after a turn). */
  'comments.changed': z.object({ sessionId: z.string() }),
};
