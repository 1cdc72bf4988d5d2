import type { Checkpoint, CheckpointKind } from '../../../shared/contract/checkpoints';
import type { Db } from '../store';

/** A session_checkpoints row (migration 028). */
interface CheckpointRow {
  session_id: string;
  workspace_id: string;
  seq: number;
  kind: CheckpointKind;
  turn: number | null;
  restored_to: number | null;
  commit_sha: string;
  parent_sha: string | null;
  files: number;
  additions: number;
  deletions: number;
  created_at: string;
}

const toCheckpoint = (r: CheckpointRow): Checkpoint => ({
  sessionId: r.session_id,
  seq: r.seq,
  kind: r.kind,
  turn: r.turn,
  restoredTo: r.restored_to,
  commit: r.commit_sha,
  parent: r.parent_sha,
  files: r.files,
  additions: r.additions,
  deletions: r.deletions,
  at: r.created_at,
});

/** Checkpoints of sessions: one row per hidden ref in the workspace's clone. SQL only. */
export class CheckpointStore {
  constructor(private readonly db: Db) {}

  list(sessionId: string): Checkpoint[] {
    const rows = this.db
      .prepare('SELECT * FROM session_checkpoints WHERE session_id = ? ORDER BY seq')
      .all(sessionId) as CheckpointRow[];
    return rows.map(toCheckpoint);
  }

  get(sessionId: string, seq: number): Checkpoint | null {
    const row = this.db
      .prepare('SELECT * FROM session_checkpoints WHERE session_id = ? AND seq = ?')
      .get(sessionId, seq) as CheckpointRow | undefined;
    return row ? toCheckpoint(row) : null;
  }

  /** A session's latest checkpoint and the number of its last turn. */
  last(sessionId: string): { checkpoint: Checkpoint | null; turn: number } {
    const row = this.db
      .prepare('SELECT * FROM session_checkpoints WHERE session_id = ? ORDER BY seq DESC LIMIT 1')
      .get(sessionId) as CheckpointRow | undefined;
    const turn = this.db
      .prepare('SELECT MAX(turn) AS turn FROM session_checkpoints WHERE session_id = ?')
      .get(sessionId) as { turn: number | null };
    return { checkpoint: row ? toCheckpoint(row) : null, turn: turn.turn ?? 0 };
  }

  insert(workspaceId: string, c: Checkpoint): void {
    this.db
      .prepare(
        `INSERT INTO session_checkpoints (session_id, workspace_id, seq, kind, turn, restored_to, commit_sha, parent_sha,
           files, additions, deletions, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(
        c.sessionId,
        workspaceId,
        c.seq,
        c.kind,
        c.turn,
        c.restoredTo,
        c.commit,
        c.parent,
        c.files,
        c.additions,
        c.deletions,
        c.at,
      );
  }

  /** The workspace a session's checkpoints live in (null: it has none). */
  workspaceOf(sessionId: string): string | null {
    const row = this.db
      .prepare('SELECT workspace_id FROM session_checkpoints WHERE session_id = ? LIMIT 1')
      .get(sessionId) as { workspace_id: string } | undefined;
    return row?.workspace_id ?? null;
  }

  deleteSession(sessionId: string): void {
    this.db.prepare('DELETE FROM session_checkpoints WHERE session_id = ?').run(sessionId);
  }
}
