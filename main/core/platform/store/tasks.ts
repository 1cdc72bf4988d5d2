import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { Task } from '../../../../shared/platform-tools';
import type { Db } from '../../store';
import type { BoardMirrorSlot } from '../board-mirror';

export type Task = z.infer<typeof Task>;
type TaskStatus = Task['status'];

const Row = z.object({
  id: z.string(),
  parent_id: z.string().nullable(),
  title: z.string(),
  body: z.string(),
  status: Task.shape.status,
  depends_on: z.string(),
  role_hint: z.string().nullable(),
  project: z.string().nullable(),
  created_by_run: z.string().nullable(),
  created_at: z.string(),
});
const IdList = z.array(z.string());
const toTask = (raw: unknown): Task => {
  const r = Row.parse(raw);
  return {
    id: r.id,
    parentId: r.parent_id,
    title: r.title,
    body: r.body,
    status: r.status,
    dependsOn: IdList.parse(JSON.parse(r.depends_on)),
    roleHint: r.role_hint,
    createdAt: r.created_at,
  };
};

/** A task with where it belongs (its project: a workspace id for sessions) and the run that made it. */
export type BoardRow = Task & { project: string | null; createdByRun: string | null };

export interface NewTask {
  title: string;
  body?: string;
  status: TaskStatus;
  parentId?: string | null;
  dependsOn?: string[];
  roleHint?: string | null;
  project?: string | null;
  createdByRun?: string | null;
}

export class TaskStore {
  private readonly byId;
  constructor(
    private readonly db: Db,
    private readonly mirror?: BoardMirrorSlot,
  ) {
    this.byId = db.prepare('SELECT * FROM tasks WHERE id = ?');
  }

  create(input: NewTask): Task {
    const task: Task = {
      id: randomUUID(),
      parentId: input.parentId ?? null,
      title: input.title,
      body: input.body ?? '',
      status: input.status,
      dependsOn: input.dependsOn ?? [],
      roleHint: input.roleHint ?? null,
      createdAt: new Date().toISOString(),
    };
    this.db
      .prepare(
        'INSERT INTO tasks (id, parent_id, title, body, status, depends_on, role_hint, project, ' +
          'created_by_run, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
      )
      .run(
        task.id,
        task.parentId,
        task.title,
        task.body,
        task.status,
        JSON.stringify(task.dependsOn),
        task.roleHint,
        input.project ?? null,
        input.createdByRun ?? null,
        task.createdAt,
      );
    return task;
  }

  get(id: string): Task | null {
    const row = this.byId.get(id);
    return row ? toTask(row) : null;
  }

  /** Every task (of one project when given), newest first, for the board. */
  board(project?: string): BoardRow[] {
    const rows = project
      ? this.db.prepare('SELECT * FROM tasks WHERE project = ? ORDER BY created_at DESC').all(project)
      : this.db.prepare('SELECT * FROM tasks ORDER BY created_at DESC').all();
    return rows.map((raw) => {
      const r = Row.parse(raw);
      return { ...toTask(r), project: r.project, createdByRun: r.created_by_run };
    });
  }

  /** Whether the task was made by an agent's run (delegated), not by the operator; false when there is no such task. */
  delegated(id: string): boolean {
    return this.db.prepare('SELECT 1 FROM tasks WHERE id = ? AND created_by_run IS NOT NULL').get(id) !== undefined;
  }

  project(id: string): string | null {
    const r = this.db.prepare('SELECT project FROM tasks WHERE id = ?').get(id) as
      { project: string | null } | undefined;
    return r?.project ?? null;
  }

  /** The status and its mirror's outbox row commit together. */
  setStatus(id: string, status: TaskStatus): boolean {
    const changed = this.db.transaction(() => {
      const before = this.db.prepare('SELECT status FROM tasks WHERE id = ?').get(id) as { status: string } | undefined;
      if (!before) return false;
      this.db.prepare('UPDATE tasks SET status = ? WHERE id = ?').run(status, id);
      if (before.status !== status) this.mirror?.current?.statusChanged(id, status);
      return true;
    })();
    if (changed) this.mirror?.current?.committed();
    return changed;
  }

  children(parentId: string): Task[] {
    return this.db.prepare('SELECT * FROM tasks WHERE parent_id = ? ORDER BY created_at').all(parentId).map(toTask);
  }
}
