import type { BoardTask } from '../../../shared/contract/platform';
import { NexusError } from '../../../shared/errors';
import type { Task, TaskStore } from './store/tasks';
import type { Db } from '../store';
import type { BoardFeed } from './board-feed';
import type { BoardMirrorSlot } from './board-mirror';
import { Names, type NameLookup } from './names';
import type { BoardStore } from './store/board';
import type { RunStore } from './store/runs';

/**
 * The board as a person reads it: every task by status with the workspace it belongs to, the
 * sessions that ran on it and the agents' comments, all named ("flow · beta"), never bare ids.
 */
export class BoardService {
  constructor(
    private readonly deps: {
      db: Db;
      /** Workspace and session names (their rooms' stores). */
      names: NameLookup;
      tasks: TaskStore;
      runs: RunStore;
      board: BoardStore;
      feed: BoardFeed;
      mirror: BoardMirrorSlot;
    },
  ) {}

  list(workspaceId?: string): BoardTask[] {
    const names = new Names(this.deps.db, this.deps.names);
    const mirror = this.deps.mirror.current;
    return this.deps.tasks.board(workspaceId).map((t) => {
      const { project, createdByRun, ...task } = t;
      const creator = createdByRun ? this.deps.runs.get(createdByRun) : null;
      const seen = new Set<string>();
      const sessions: BoardTask['sessions'] = [];
      for (const r of this.deps.runs.forTask(t.id)) {
        const s = names.session(r.sessionId);
        if (!s || !r.sessionId || seen.has(r.sessionId)) continue;
        seen.add(r.sessionId);
        sessions.push({ id: r.sessionId, name: s.name, workspaceName: names.workspaceName(s.workspaceId) ?? '' });
      }
      const issue = mirror?.issueOf(t.id) ?? null;
      const states = issue ? mirror?.commentStates(t.id) : undefined;
      return {
        ...task,
        issue,
        workspaceId: names.workspaceName(project) ? project : null,
        workspaceName: names.workspaceName(project),
        createdBy: creator ? names.actor(creator.agentId, creator.id) : null,
        sessions,
        comments: this.deps.board.forTask(t.id).map((c) => {
          const state = states?.get(c.id);
          return {
            id: c.id,
            body: c.body,
            createdAt: c.createdAt,
            by: names.actor(c.agentId, c.runId),
            ...(state ? { mirror: state } : {}),
          };
        }),
      };
    });
  }

  setStatus(id: string, status: Task['status']): { id: string; status: string } {
    if (!this.deps.tasks.setStatus(id, status)) throw new NexusError('not_found', `No task "${id}".`);
    this.deps.feed.changed({ taskId: id, kind: 'status' });
    return { id, status };
  }
}
