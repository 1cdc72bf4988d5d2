import type { Disposable } from '../../disposable';
import type { Logger } from '../../log';
import type { WorkspaceEvents } from '../../workspaces';
import type { SessionService } from '../session-service';

/**
 * Each time a workspace moves into `running`: prunes stale worktree records (queued first, before
 * any session work), then converges its sessions. When a workspace is removed,
 * ends the platform runs of its (cascade-deleted) sessions.
 */
export function convergeOnWorkspaceStart(
  signals: Pick<WorkspaceEvents, 'on'>,
  sessions: Pick<SessionService, 'converge' | 'endOrphanRuns' | 'pruneWorktrees'>,
  log: Logger,
): Disposable {
  const started = signals.on('started', ({ workspaceId }) => {
    sessions
      .pruneWorktrees(workspaceId)
      .catch((e: unknown) => log.warn('worktree prune on start failed', { workspaceId, error: e }));
    sessions
      .converge(workspaceId)
      .catch((e: unknown) => log.warn('session converge failed', { workspaceId, error: e }));
  });
  const removed = signals.on('removed', () => {
    sessions.endOrphanRuns().catch((e: unknown) => log.warn('ending orphaned session runs failed', { error: e }));
  });
  return { dispose: () => (started.dispose(), removed.dispose()) };
}
