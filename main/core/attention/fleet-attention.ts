import type { EventBus } from '../events';
import type { Logger } from '../log';
import type { Notifier } from '../ports';
import type { Redactor } from '../redact';
import type { ReviewQueue } from '../platform';
import type { SessionService } from '../sessions';
import type { WorkspaceService } from '../workspaces';
import { AttentionService } from './attention-service';

/** The attention service over the fleet: workspaces, sessions and the review queue's counts. */
export function fleetAttention(d: {
  workspaces: Pick<WorkspaceService, 'list'>;
  sessions: Pick<SessionService, 'list'>;
  review: Pick<ReviewQueue, 'counts'>;
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
    },
    events: d.events,
    notifier: d.notifier,
    redactor: d.redactor,
    log: d.log,
  });
}
