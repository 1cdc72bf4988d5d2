import type { Db } from '../store/open';

export interface AuditEntry {
  actor: string;
  transport: string;
  operation: string;
  outcome: string;
  durationMs: number;
  detail?: string;
  /**
   * A read that succeeded (it changed nothing). A batch of only such rows is committed without its
   * own fsync (synchronous=NORMAL for that one transaction): it survives Nexus being killed, and a
   * power cut only until the next synced write, which syncs the log file and these rows with it.
   */
  readOnly?: boolean;
}

export interface AuditRow extends AuditEntry {
  id: number;
  at: string;
}

/**
 * Append-only record of who did what, through which transport, and how it ended.
 * Entries recorded in the same event-loop turn are written in one transaction (group commit): the
 * store runs synchronous=FULL, so one fsync per entry would cost every MCP call several ms.
 * `recent()` and core.dispose() flush first, so nothing recorded is ever missing from a read.
 * A batch holding only successful reads (`readOnly`) skips the fsync; any change, refusal or
 * failure in a batch makes the whole batch a synced commit.
 */
const MAX_PENDING = 10_000;

export class AuditLog {
  private readonly insert;
  private pending: (AuditEntry & { at: string })[] = [];
  private scheduled = false;
  constructor(private readonly db: Db) {
    this.insert = db.prepare(
      'INSERT INTO audit (at, actor, transport, operation, outcome, duration_ms, detail) VALUES (?, ?, ?, ?, ?, ?, ?)',
    );
  }

  record(e: AuditEntry): void {
    this.pending.push({ ...e, at: new Date().toISOString() });
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => {
      try {
        this.flush();
      } catch {
        // A refused write (disk full) must not throw into the event loop; the batch stays pending.
      }
    });
  }

  /** Writes every pending entry in one transaction. */
  flush(): void {
    this.scheduled = false;
    if (this.pending.length === 0 || !this.db.open) return;
    const batch = this.pending;
    this.pending = [];
    const unsynced = !this.db.inTransaction && batch.every((e) => e.readOnly === true);
    if (unsynced) this.db.pragma('synchronous = NORMAL');
    try {
      this.db.transaction(() => {
        for (const e of batch)
          this.insert.run(
            e.at,
            e.actor,
            e.transport,
            e.operation,
            e.outcome,
            Math.round(e.durationMs),
            e.detail ?? null,
          );
      })();
    } catch (e) {
      // Kept for the next flush (bounded), so entries survive a full disk once space returns.
      this.pending = [...batch, ...this.pending].slice(-MAX_PENDING);
      throw e;
    } finally {
      if (unsynced) this.db.pragma('synchronous = FULL');
    }
  }

  recent(limit = 100): AuditRow[] {
    this.flush();
    return this.db
      .prepare(
        'SELECT id, at, actor, transport, operation, outcome, duration_ms AS durationMs, detail FROM audit ORDER BY id DESC LIMIT ?',
      )
      .all(limit) as AuditRow[];
  }
}
