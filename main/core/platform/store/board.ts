import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import type { Db } from '../../store';
import type { BoardMirrorSlot } from '../board-mirror';

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

/**
 * Progress comments on a task's board card. Comments added in the same event-loop turn are written
 * in one transaction (group commit): at tool-call rate a commit per comment was the cost of the call.
 * `add` resolves once its row is committed, so a reply never announces a comment that is not stored.
 */
export class BoardStore {
  private readonly insert;
  private pending: { c: BoardComment; resolve: (c: BoardComment) => void; reject: (e: unknown) => void }[] = [];
  constructor(
    private readonly db: Db,
    private readonly mirror?: BoardMirrorSlot,
  ) {
    this.insert = db.prepare(
      'INSERT INTO board_comments (id, task_id, run_id, agent_id, body, created_at) VALUES (?, ?, ?, ?, ?, ?)',
    );
  }

  add(input: { taskId: string; runId: string; agentId: string; body: string }): Promise<BoardComment> {
    const c: BoardComment = { id: randomUUID(), ...input, createdAt: new Date().toISOString() };
    return new Promise((resolve, reject) => {
      if (this.pending.push({ c, resolve, reject }) === 1) setImmediate(() => this.flush());
    });
  }

  private flush(): void {
    const batch = this.pending;
    this.pending = [];
    const failed = new Map<BoardComment, unknown>();
    try {
      this.db.transaction(() => {
        for (const { c } of batch) {
          try {
            // The comment and its mirror's outbox row commit together (a savepoint per comment).
            this.db.transaction(() => {
              this.insert.run(c.id, c.taskId, c.runId, c.agentId, c.body, c.createdAt);
              this.mirror?.current?.commentStored(c);
            })();
          } catch (e) {
            failed.set(c, e);
          }
        }
      })();
    } catch (e) {
      for (const { reject } of batch) reject(e);
      return;
    }
    this.mirror?.current?.committed();
    for (const { c, resolve, reject } of batch) {
      if (failed.has(c)) reject(failed.get(c));
      else resolve(c);
    }
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
