import type { EventPayload } from '../../../shared/contract';
import { sessionNameForTask } from '../../../shared/contract/platform';
import type { Disposable } from '../disposable';
import type { EventBus } from '../events';
import type { Logger } from '../log';
import type { BoardChange, Agent, BoardRow } from '../platform';
import type { Db } from '../store';
import type { SessionService } from './session-service';
import { SessionStore } from './session-store';

export interface AutoStartDeps {
  db: Db;
  feed: { on(h: (c: BoardChange) => void): Disposable };
  events: Pick<EventBus, 'subscribe'>;
  /** The workspace's agent record, when it has one (never created here). */
  agentOf(workspaceId: string): Agent | null;
  /** Workspaces whose agent has auto-start on (a removed session names no workspace: all of them get a look). */
  autoStartWorkspaces(): string[];
  tasks: { board(project: string): BoardRow[]; project(id: string): string | null; delegated(id: string): boolean };
  sessions: Pick<SessionService, 'create'>;
  log: Logger;
}

/**
 * Opt-in auto-start (agent record `autoStart`): each task delegated in a workspace gets a session
 * of its own, at most `maxAutoSessions` live at once (sessions on delegated tasks, creating or
 * running); the rest wait as ready_for_agent and start as sessions go. One workspace at a time.
 */
export function autoStartDelegated(d: AutoStartDeps): Disposable {
  const queues = new Map<string, Promise<void>>();
  const store = new SessionStore(d.db);
  /** Live sessions on delegated tasks. */
  const busy = (workspaceId: string): number =>
    store.liveTaskIds(workspaceId).filter((taskId) => d.tasks.delegated(taskId)).length;
  const fill = async (workspaceId: string): Promise<void> => {
    const agent = d.agentOf(workspaceId);
    if (!agent?.autoStart) return;
    let room = agent.maxAutoSessions - busy(workspaceId);
    const ready = d.tasks
      .board(workspaceId)
      .filter((t) => t.status === 'ready_for_agent' && t.createdByRun)
      .reverse();
    for (const task of ready) {
      if (room <= 0) return;
      room -= 1;
      await d.sessions
        .create({
          workspace: workspaceId,
          name: sessionNameForTask(task),
          taskId: task.id,
          initialMessage: task.body ? `${task.title}\n\n${task.body}` : task.title,
        })
        .catch((e: unknown) => d.log.warn('auto-start of a delegated task failed', { taskId: task.id, error: e }));
    }
  };
  const kick = (workspaceId: string | null): void => {
    if (!workspaceId) return;
    const next = (queues.get(workspaceId) ?? Promise.resolve()).then(() => fill(workspaceId));
    queues.set(
      workspaceId,
      next.catch(() => undefined),
    );
  };
  const fromFeed = d.feed.on((c) => {
    if (c.kind === 'delegated') kick(d.tasks.project(c.taskId));
  });
  const fromSessions = d.events.subscribe((e) => {
    if (e.name !== 'sessions.changed') return;
    const s = (e.payload as EventPayload<'sessions.changed'>).session;
    if (!s) for (const id of d.autoStartWorkspaces()) kick(id);
    else if (s.status === 'exited' || s.status === 'error') kick(s.workspaceId);
  });
  return {
    dispose: () => {
      fromFeed.dispose();
      fromSessions.dispose();
    },
  };
}
