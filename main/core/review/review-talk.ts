import { DisposableStore, type Disposable } from '../disposable';
import type { Handlers } from '../handlers';
import type { Db } from '../store';
import { Attempts } from './attempts';
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
  | 'comments.send'
  | 'attempts.start'
  | 'attempts.list'
  | 'attempts.get'
  | 'attempts.keep';

/**
 * Review that talks back (docs/sessions.md): comments on diff lines sent to the agent, a checkpoint per
 * turn, N attempts of one prompt compared, the conflict radar. `start` follows the sessions module's turn ends and changes.
 */
export function createReviewTalk(deps: ReviewDeps, db: Db) {
  const checkpoints = new Checkpoints(deps, db);
  const radar = new ConflictRadar(deps);
  const comments = new ReviewComments(deps, db);
  const attempts = new Attempts(deps, db, checkpoints);
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
    'attempts.start': (input, ctx) => attempts.start({ ...input, workspace: ctx.workspace?.id ?? input.workspace }),
    'attempts.list': (input) => attempts.list(input.workspace),
    'attempts.get': (input) => attempts.get(input.group),
    'attempts.keep': (input) => attempts.keep(input.group, input.session),
  };
  return {
    checkpoints,
    radar,
    comments,
    attempts,
    handlers,
    start(): Disposable {
      const subs = new DisposableStore();
      subs.add(checkpoints.follow());
      subs.add(radar.follow());
      subs.add(comments.follow());
      subs.add(attempts.follow());
      return subs;
    },
  };
}
