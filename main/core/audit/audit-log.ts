import type { Db } from '../store/open';

export interface AuditEntry {
  actor: string;
  transport: string;
  operation: string;
  outcome: string;
  durationMs: number;
  detail?: string;
}

export interface AuditRow extends AuditEntry {
  id: number;
  at: string;
}

/** Append-only record of who did what, through which transport, and how it ended. */
export class AuditLog {
  private readonly insert;
  constructor(private readonly db: Db) {
    this.insert = db.prepare(
      'INSERT INTO audit (at, actor, transport, operation, outcome, duration_ms, detail) VALUES (?, ?, ?, ?, ?, ?, ?)',
    );
  }

  record(e: AuditEntry): void {
    this.insert.run(new Date().toISOString(), e.actor, e.transport, e.operation, e.outcome, Math.round(e.durationMs), e.detail ?? null);
  }

  recent(limit = 100): AuditRow[] {
    return this.db
      .prepare(
        'SELECT id, at, actor, transport, operation, outcome, duration_ms AS durationMs, detail FROM audit ORDER BY id DESC LIMIT ?',
      )
      .all(limit) as AuditRow[];
  }
}
