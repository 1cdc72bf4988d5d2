import { actorOf, type Handlers } from '../../handlers';
import type { ReviewQueue } from './review-queue';

type ReviewHandlers = Pick<
  Handlers,
  | 'review.list'
  | 'review.counts'
  | 'review.approveMemory'
  | 'review.rejectMemory'
  | 'review.approveSkill'
  | 'review.rejectSkill'
>;

export function reviewHandlers(review: ReviewQueue): ReviewHandlers {
  return {
    'review.list': () => review.list(),
    'review.counts': () => review.counts(),
    'review.approveMemory': (input, ctx) =>
      review.approveMemory(input.id, actorOf(ctx.caller), ctx.transport, input.content),
    'review.rejectMemory': (input, ctx) =>
      review.rejectMemory(input.id, actorOf(ctx.caller), ctx.transport, input.reason),
    'review.approveSkill': (input, ctx) =>
      review.approveSkill(input.id, actorOf(ctx.caller), ctx.transport, input.override),
    'review.rejectSkill': (input, ctx) =>
      review.rejectSkill(input.id, actorOf(ctx.caller), ctx.transport, input.reason),
  };
}
