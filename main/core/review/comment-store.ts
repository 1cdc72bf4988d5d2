import { randomUUID } from 'node:crypto';
import type { ReviewComment } from '../../../shared/contract/review-comments';
import type { Db } from '../store';

/** A review_comments row (migration 028). */
interface CommentRow {
  id: string;
  session_id: string;
  path: string;
  start_line: number;
  end_line: number;
  quote: string;
  body: string;
  status: 'draft' | 'sent';
  sent_at: string | null;
  lines_changed: 0 | 1 | null;
  created_at: string;
}

const toComment = (r: CommentRow): ReviewComment => ({
  id: r.id,
  sessionId: r.session_id,
  path: r.path,
  startLine: r.start_line,
  endLine: r.end_line,
  quote: r.quote,
  body: r.body,
  status: r.status,
  sentAt: r.sent_at,
  linesChanged: r.lines_changed === null ? null : r.lines_changed === 1,
  createdAt: r.created_at,
});

/** The operator's comments on sessions' diff lines. SQL only. */
export class CommentStore {
  constructor(private readonly db: Db) {}

  list(sessionId: string, status?: 'draft' | 'sent'): ReviewComment[] {
    const rows = this.db
      .prepare(
        `SELECT * FROM review_comments WHERE session_id = ? ${status ? 'AND status = ?' : ''} ORDER BY created_at, rowid`,
      )
      .all(...(status ? [sessionId, status] : [sessionId])) as CommentRow[];
    return rows.map(toComment);
  }

  get(id: string): ReviewComment | null {
    const row = this.db.prepare('SELECT * FROM review_comments WHERE id = ?').get(id) as CommentRow | undefined;
    return row ? toComment(row) : null;
  }

  insert(c: Pick<ReviewComment, 'sessionId' | 'path' | 'startLine' | 'endLine' | 'quote' | 'body'>): ReviewComment {
    const id = randomUUID();
    this.db
      .prepare(
        `INSERT INTO review_comments (id, session_id, path, start_line, end_line, quote, body, status, created_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, 'draft', ?)`,
      )
      .run(id, c.sessionId, c.path, c.startLine, c.endLine, c.quote, c.body, new Date().toISOString());
    return this.get(id) as ReviewComment;
  }

  deleteDraft(id: string): boolean {
    return this.db.prepare("DELETE FROM review_comments WHERE id = ? AND status = 'draft'").run(id).changes === 1;
  }

  markSent(ids: string[], at: string): void {
    const mark = this.db.prepare("UPDATE review_comments SET status = 'sent', sent_at = ? WHERE id = ?");
    this.db.transaction(() => ids.forEach((id) => mark.run(at, id)))();
  }

  /** Sent comments whose lines were not looked at again since. */
  awaitingTurn(sessionId: string): ReviewComment[] {
    const rows = this.db
      .prepare("SELECT * FROM review_comments WHERE session_id = ? AND status = 'sent' AND lines_changed IS NULL")
      .all(sessionId) as CommentRow[];
    return rows.map(toComment);
  }

  setLinesChanged(id: string, changed: boolean): void {
    this.db.prepare('UPDATE review_comments SET lines_changed = ? WHERE id = ?').run(changed ? 1 : 0, id);
  }
}
