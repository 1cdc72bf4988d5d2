import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import type { MirrorState, OutboxEntry } from '../../../shared/contract/tracker';
import type { Db } from '../store';

export type OutboxKind = OutboxEntry['kind'];

const Row = z.object({
  seq: z.number().int(),
  id: z.string(),
  task_id: z.string(),
  workspace_id: z.string(),
  issue: z.number().int(),
  kind: z.enum(['comment', 'status', 'note']),
  comment_id: z.string().nullable(),
  body: z.string(),
  status: z.string().nullable(),
  state: z.enum(['pending', 'sent']),
  attempts: z.number().int(),
  refused: z.number().int(),
  next_at: z.string(),
  last_error: z.string().nullable(),
  remote_id: z.string().nullable(),
  created_at: z.string(),
  sent_at: z.string().nullable(),
});
export type OutboxRow = z.infer<typeof Row>;

export interface NewOutboxRow {
  taskId: string;
  workspaceId: string;
  issue: number;
  kind: OutboxKind;
  /** The board comment it mirrors: at most one row per comment. */
  commentId?: string;
  body: string;
  /** For `status`: the tracker's status. */
  status?: string;
}

export const mirrorState = (r: Pick<OutboxRow, 'state' | 'refused'>): MirrorState =>
  r.state === 'sent' ? 'sent' : r.refused ? 'failed' : 'pending';

/**
 * What Nexus owes the trackers. Rows are added inside the transaction that stores what they mirror, and leave
 * `pending` only as `sent`; `attempts` is committed before each request (see outbox-sender.ts). SQL only.
 */
export class OutboxStore {
  constructor(private readonly db: Db) {}

  add(row: NewOutboxRow): string {
    const id = randomUUID();
    const now = new Date().toISOString();
    this.db
      .prepare(
        'INSERT INTO tracker_outbox (id, task_id, workspace_id, issue, kind, comment_id, body, status, next_at, ' +
          'created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
      )
      .run(
        id,
        row.taskId,
        row.workspaceId,
        row.issue,
        row.kind,
        row.commentId ?? null,
        row.body,
        row.status ?? null,
        now,
        now,
      );
    return id;
  }

  /** Each issue's oldest pending row: an issue's rows go out one at a time, in the order they were stored. */
  heads(): OutboxRow[] {
    return this.db
      .prepare(
        "SELECT o.* FROM tracker_outbox o WHERE o.state = 'pending' AND o.seq = (SELECT min(seq) FROM tracker_outbox " +
          "p WHERE p.state = 'pending' AND p.workspace_id = o.workspace_id AND p.issue = o.issue) ORDER BY o.seq",
      )
      .all()
      .map((r) => Row.parse(r));
  }

  /** Raised and committed before the request: a row with attempts was perhaps delivered (its answer lost). */
  attempt(id: string): void {
    this.db.prepare('UPDATE tracker_outbox SET attempts = attempts + 1 WHERE id = ?').run(id);
  }

  sent(id: string, remoteId: string | null): void {
    this.db
      .prepare(
        "UPDATE tracker_outbox SET state = 'sent', sent_at = ?, remote_id = ?, last_error = NULL, refused = 0 " +
          'WHERE id = ?',
      )
      .run(new Date().toISOString(), remoteId, id);
  }

  failed(id: string, error: string, refused: boolean, nextAt: Date): void {
    this.db
      .prepare('UPDATE tracker_outbox SET last_error = ?, refused = ?, next_at = ? WHERE id = ?')
      .run(error, refused ? 1 : 0, nextAt.toISOString(), id);
  }

  /** Pending rows that may go again now (the operator asked, or the settings changed). */
  retryNow(workspaceId?: string): void {
    const now = new Date().toISOString();
    if (workspaceId)
      this.db
        .prepare("UPDATE tracker_outbox SET next_at = ? WHERE state = 'pending' AND workspace_id = ?")
        .run(now, workspaceId);
    else this.db.prepare("UPDATE tracker_outbox SET next_at = ? WHERE state = 'pending'").run(now);
  }

  /** A comment's way to the tracker, for its card. */
  forComments(taskId: string): Map<string, MirrorState> {
    const rows = this.db
      .prepare("SELECT comment_id, state, refused FROM tracker_outbox WHERE task_id = ? AND kind = 'comment'")
      .all(taskId) as { comment_id: string; state: 'pending' | 'sent'; refused: number }[];
    return new Map(rows.map((r) => [r.comment_id, mirrorState(r)]));
  }

  list(taskId?: string): OutboxEntry[] {
    const rows = taskId
      ? this.db.prepare('SELECT * FROM tracker_outbox WHERE task_id = ? ORDER BY seq').all(taskId)
      : this.db
          .prepare("SELECT * FROM tracker_outbox WHERE state = 'pending' OR sent_at > ? ORDER BY seq LIMIT 500")
          .all(new Date(Date.now() - 24 * 3600_000).toISOString());
    return rows.map((raw) => {
      const r = Row.parse(raw);
      return {
        id: r.id,
        taskId: r.task_id,
        issue: r.issue,
        kind: r.kind,
        state: mirrorState(r),
        attempts: r.attempts,
        lastError: r.last_error,
        createdAt: r.created_at,
        sentAt: r.sent_at,
      };
    });
  }
}
