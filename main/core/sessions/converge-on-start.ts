import type { Disposable } from '../disposable';
import type { Logger } from '../log';
import type { WorkspaceEvents } from '../workspaces/workspace-events';
import type { SessionService } from './session-service';

/**
 * Converges a workspace's sessions each time it moves into `running`; when a workspace is removed,
 * ends the platform runs of its (cascade-deleted) sessions.
 */
export function convergeOnWorkspaceStart(
  signals: Pick<WorkspaceEvents, 'on'>,
  sessions: Pick<SessionService, 'converge' | 'endOrphanRuns'>,
  log: Logger,
): Disposable {
  const started = signals.on('started', ({ workspaceId }) => {
    sessions
      .converge(workspaceId)
      .catch((e: unknown) => log.warn('session converge failed', { workspaceId, error: e }));
  });
  const removed = signals.on('removed', () => {
    sessions.endOrphanRuns().catch((e: unknown) => log.warn('ending orphaned session runs failed', { error: e }));
  });
  return { dispose: () => (started.dispose(), removed.dispose()) };
}
