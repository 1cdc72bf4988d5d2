import { DisposableStore, type Disposable } from '../disposable';
import type { Handlers } from '../handlers';
import type { Db } from '../store/open';
import { Checkpoints } from './checkpoints';
import { ConflictRadar } from './radar';
import type { ReviewDeps } from './review-deps';
import { ReviewComments } from './review-comments';

type TalkOps =
  | 'checkpoints.list'
  | 'checkpoints.diff'
  | 'checkpoints.restore'
  | 'radar.get'
  | 'radar.land'
  | 'comments.list'
  | 'comments.add'
  | 'comments.delete'
  | 'comments.send';

/**
 * Review that talks back (docs/sessions.md): comments on diff lines sent to the agent, a checkpoint per
 * turn, the conflict radar. `start` follows the sessions module's turn ends and changes.
 */
export function createReviewTalk(deps: ReviewDeps, db: Db) {
  const checkpoints = new Checkpoints(deps, db);
  const radar = new ConflictRadar(deps);
  const comments = new ReviewComments(deps, db);
  const handlers: Pick<Handlers, TalkOps> = {
    'checkpoints.list': (input) => checkpoints.list(input.session),
    'checkpoints.diff': (input) => checkpoints.diff(input.session, input.seq, input.file),
    'checkpoints.restore': (input) => checkpoints.restore(input.session, input.seq),
    'radar.get': (input, ctx) => radar.get(ctx.workspace?.id ?? input.workspace),
    'radar.land': (input) => radar.land(input.session),
    'comments.list': (input) => comments.list(input.session),
    'comments.add': ({ session, ...c }) => comments.add(session, c),
    'comments.delete': (input) => comments.delete(input.id),
    'comments.send': (input) => comments.send(input.session),
  };
  return {
    checkpoints,
    radar,
    comments,
    handlers,
    start(): Disposable {
      const subs = new DisposableStore();
      subs.add(checkpoints.follow());
      subs.add(radar.follow());
      subs.add(comments.follow());
      return subs;
    },
  };
}
