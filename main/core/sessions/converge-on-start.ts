import type { Disposable } from '../disposable';
import type { EventBus } from '../events';
import type { Logger } from '../log';
import type { SessionService } from './session-service';

/**
 * Converges a workspace's sessions when it starts: on every `workspaces.changed` that moves a
 * workspace into `running` (not on repeats, which reconciliation sends often).
 */
export function convergeOnWorkspaceStart(events: EventBus, sessions: Pick<SessionService, 'converge'>, log: Logger): Disposable {
  const last = new Map<string, string>();
  return events.subscribe((e) => {
    if (e.name !== 'workspaces.changed') return;
    const { workspace, removedId } = e.payload as { workspace: { id: string; status: string } | null; removedId?: string };
    if (removedId) last.delete(removedId);
    if (!workspace) return;
    const before = last.get(workspace.id);
    last.set(workspace.id, workspace.status);
    if (workspace.status === 'running' && before !== 'running') {
      sessions.converge(workspace.id).catch((err: unknown) => log.warn('session converge failed', { workspaceId: workspace.id, error: err }));
    }
  });
}
