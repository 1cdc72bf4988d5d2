import type { Disposable } from '../disposable';
import type { EventBus } from '../events';
import type { Logger } from '../log';
import type { SessionService } from './session-service';

/**
 * Converges a workspace's sessions when it starts: on every `workspaces.changed` that moves a
 * workspace into `running` (not on repeats, which reconciliation sends often); when a workspace is
 * removed, ends the platform runs of its (cascade-deleted) sessions.
 */
export function convergeOnWorkspaceStart(
  events: EventBus,
  sessions: Pick<SessionService, 'converge' | 'endOrphanRuns'>,
  log: Logger,
): Disposable {
  const last = new Map<string, string>();
  return events.subscribe((e) => {
    if (e.name !== 'workspaces.changed') return;
    const { workspace, removedId } = e.payload as {
      workspace: { id: string; status: string } | null;
      removedId?: string;
    };
    if (removedId) {
      last.delete(removedId);
      // Its sessions went with it: end their platform runs.
      sessions.endOrphanRuns().catch((err: unknown) => log.warn('ending orphaned session runs failed', { error: err }));
    }
    if (!workspace) return;
    const before = last.get(workspace.id);
    last.set(workspace.id, workspace.status);
    if (workspace.status === 'running' && before !== 'running') {
      sessions
        .converge(workspace.id)
        .catch((err: unknown) => log.warn('session converge failed', { workspaceId: workspace.id, error: err }));
    }
  });
}
