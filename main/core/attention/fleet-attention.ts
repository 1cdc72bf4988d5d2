import type { Workspace } from '../../../shared/contract';
import type { EventBus } from '../events';
import type { Logger } from '../log';
import type { Notifier } from '../ports';
import type { Redactor } from '../redact';
import type { ReviewQueue } from '../platform';
import type { ConflictRadar } from '../review';
import type { SessionService } from '../sessions';
import { AttentionService } from './attention-service';

/** The attention service over the fleet: workspaces, sessions, the review queue's counts and the conflict radar. */
export function fleetAttention(d: {
  workspaces: { list(): Pick<Workspace, 'id' | 'name' | 'status'>[] };
  sessions: Pick<SessionService, 'list'>;
  review: Pick<ReviewQueue, 'counts'>;
  radar: Pick<ConflictRadar, 'needingYou'>;
  events: EventBus;
  notifier: Notifier;
  redactor: Redactor;
  log: Logger;
}): AttentionService {
  return new AttentionService({
    sources: {
      workspaces: () => Promise.resolve(d.workspaces.list()),
      sessions: () => d.sessions.list(),
      reviewCounts: () => {
        const c = d.review.counts();
        return { memories: c.pendingMemories, skills: c.draftSkills };
      },
      conflicts: () => d.radar.needingYou(),
    },
    events: d.events,
    notifier: d.notifier,
    redactor: d.redactor,
    log: d.log,
  });
}
