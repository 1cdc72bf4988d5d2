import { dirname, join } from 'node:path';
import type { Db } from '../store';
import { AuditJournal, type JournalRow } from './audit-journal';
import { AuditStore } from './audit-store';

/** Who did what, through which transport, and how it ended (the journal's row without its time). */
export interface AuditEntry extends Omit<JournalRow, 'at'> {
  /**
   * A read that succeeded (it changed nothing). Such a row goes to the journal at once and into the
   * database with the next group commit (within `READS_COMMIT_MS`); a batch of only such rows is
   * committed without its own fsync (synchronous=NORMAL for that one transaction): it survives
   * Nexus being killed, and a power cut only until the next synced write.
   */
  readOnly?: boolean;
}

export interface AuditRow extends AuditEntry {
  id: number;
  at: string;
}

/**
 * Append-only record of who did what, through which transport, and how it ended.
 * Rows are written in group commits, never one transaction per row: the store runs
 * synchronous=FULL, and one fsync per row would cost every call several ms. A change, refusal or
 * failure is committed at the end of its event-loop turn, with a sync. Successful reads
 * (`readOnly`), the bulk of MCP traffic, are written to the journal (audit-journal.ts) with one
 * write(2) before the call answers and committed together every `READS_COMMIT_MS` (or once
 * `READS_BATCH` wait, or with the next change) without their own fsync: a commit per turn put a
 * WAL write on the event loop for every busy read. Killing Nexus loses none of them (the next
 * start imports the journal). `recent()` and `close()` commit first, so nothing recorded is ever
 * missing from a read.
 */
const MAX_PENDING = 10_000;
export const READS_COMMIT_MS = 250;
const READS_BATCH = 500;
type Pending = AuditEntry & { at: string };

export class AuditLog {
  /** The table: its statements built once, since a commit runs after every turn that recorded a change. */
  readonly store: AuditStore;
  private readonly journal: AuditJournal | null;
  private pending: Pending[] = [];
  /** A commit at the end of this turn is scheduled. */
  private scheduled = false;
  /** The reads' commit timer. */
  private later: NodeJS.Timeout | null = null;

  /**
   * `journalDir`: where successful reads wait for their commit (default `audit-journal/` beside the
   * database file; none for an in-memory database, whose reads are then committed per turn).
   */
  constructor(
    private readonly db: Db,
    journalDir: string | null = db.memory ? null : join(dirname(db.name), 'audit-journal'),
  ) {
    this.store = new AuditStore(db);
    this.journal = journalDir ? AuditJournal.open(journalDir, (rows) => this.importRows(rows)) : null;
  }

  record(e: AuditEntry): void {
    const row = { ...e, at: new Date().toISOString() };
    this.pending.push(row);
    if (row.readOnly === true && this.pending.length < READS_BATCH && this.journal?.append(journalRow(row))) {
      this.later ??= setTimeout(() => this.flushQuietly(), READS_COMMIT_MS).unref();
      return;
    }
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => this.flushQuietly());
  }

  /** Writes every pending entry in one transaction. */
  flush(): void {
    this.scheduled = false;
    if (this.later) clearTimeout(this.later);
    this.later = null;
    if (this.pending.length === 0 || !this.db.open) return;
    const batch = this.pending;
    this.pending = [];
    const nested = this.db.inTransaction;
    const unsynced = !nested && batch.every((e) => e.readOnly === true);
    try {
      this.store.write(batch, unsynced);
    } catch (e) {
      // Kept for the next flush (bounded), so entries survive a full disk once space returns.
      this.pending = [...batch, ...this.pending].slice(-MAX_PENDING);
      throw e;
    }
    // Inside someone's transaction the rows are not committed yet: the journal keeps them (an
    // import skips rows already present).
    if (!nested) this.journal?.clear();
  }

  /** Commits what is pending and closes the journal (kept, for the next start, if the commit failed). */
  close(): void {
    try {
      this.flush();
    } finally {
      this.journal?.close();
    }
  }

  recent(limit = 100): AuditRow[] {
    this.flush();
    return this.store.recent(limit) as AuditRow[];
  }

  private flushQuietly(): void {
    try {
      this.flush();
    } catch {
      // A refused write (disk full) must not throw into the event loop; the batch stays pending.
    }
  }

  /** Rows an earlier process left in its journal, less any its last commit already wrote. */
  private importRows(rows: readonly JournalRow[]): void {
    const missing = rows.filter((r) => !this.store.has(r));
    if (missing.length > 0) this.store.write(missing, false);
  }
}

const journalRow = (e: Pending): JournalRow => ({
  at: e.at,
  actor: e.actor,
  transport: e.transport,
  operation: e.operation,
  outcome: e.outcome,
  durationMs: e.durationMs,
  ...(e.detail !== undefined ? { detail: e.detail } : {}),
});
