import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import type { Db } from '../../store/open';

export interface BoardComment {
  id: string;
  taskId: string;
  runId: string | null;
  agentId: string | null;
  body: string;
  createdAt: string;
}

const Row = z.object({
  id: z.string(),
  task_id: z.string(),
  run_id: z.string().nullable(),
  agent_id: z.string().nullable(),
  body: z.string(),
  created_at: z.string(),
});

/** Progress comments on a task's board card. */
export class BoardRepo {
  private readonly insert;
  constructor(private readonly db: Db) {
    this.insert = db.prepare(
      'INSERT INTO board_comments (id, task_id, run_id, agent_id, body, created_at) VALUES (?, ?, ?, ?, ?, ?)',
    );
  }

  add(input: { taskId: string; runId: string; agentId: string; body: string }): BoardComment {
    const c: BoardComment = { id: randomUUID(), ...input, createdAt: new Date().toISOString() };
    this.insert.run(c.id, c.taskId, c.runId, c.agentId, c.body, c.createdAt);
    return c;
  }

  forTask(taskId: string): BoardComment[] {
    return this.db
      .prepare('SELECT * FROM board_comments WHERE task_id = ? ORDER BY created_at, rowid')
      .all(taskId)
      .map((raw) => {
        const r = Row.parse(raw);
        return {
          id: r.id,
          taskId: r.task_id,
          runId: r.run_id,
          agentId: r.agent_id,
          body: r.body,
          createdAt: r.created_at,
        };
      });
  }
}
