import type { Handlers } from '../handlers';
import type { IssueSessions } from './issue-sessions';
import type { OutboxStore } from './outbox-store';
import type { TrackerService } from './tracker-service';

type TrackerOps = 'tracker.get' | 'tracker.set' | 'tracker.link' | 'tracker.startSession' | 'tracker.outbox';

/** The tracker.* operations, each a thin call into the tracker module. */
export function trackerHandlers(t: {
  service: TrackerService;
  sessions: IssueSessions;
  outbox: OutboxStore;
  kick(): void;
}): Pick<Handlers, TrackerOps> {
  return {
    'tracker.get': (input) => t.service.get(input.workspace),
    'tracker.set': (input) => {
      const r = t.service.set(input.workspace, input.tracker);
      // Rows that waited for settings (or for better ones) go now.
      t.outbox.retryNow(r.workspaceId);
      t.kick();
      return r;
    },
    'tracker.link': (input) => t.service.link(input.taskId, input.issue),
    'tracker.startSession': (input, ctx) => t.sessions.start({ ...input, workspace: ctx.workspace ?? input.workspace }),
    'tracker.outbox': (input) => ({ entries: t.outbox.list(input.taskId) }),
  };
}
