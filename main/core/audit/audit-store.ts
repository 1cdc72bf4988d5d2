import type { Db } from '../store';
import type { CallerKind } from '../../../shared/contract';
import type { JournalRow } from './audit-journal';

/** What the activity feed asks for: a caller, an operation (or its prefix), an outcome, a page before an id. */
export interface ActivityFilter {
  caller?: { kind: CallerKind; id?: string };
  operation?: string;
  outcome?: string;
  before?: number;
  limit: number;
}

/** An audit row as read back: the journal's row with its id. */
export interface AuditStoreRow extends Omit<JournalRow, 'detail'> {
  id: number;
  detail: string | null;
}

const COLUMNS = 'id, at, actor, transport, operation, outcome, duration_ms AS durationMs, detail';
const likePrefix = (s: string): string => `${s.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

/** The `audit` table: written in batches by the audit log, read by it and by the activity feed. */
export class AuditStore {
  private readonly writeAll;
  private readonly present;
  private readonly newest;

  constructor(private readonly db: Db) {
    const insert = db.prepare(
      'INSERT INTO audit (at, actor, transport, operation, outcome, duration_ms, detail) VALUES (?, ?, ?, ?, ?, ?, ?)',
    );
    this.writeAll = db.transaction((batch: readonly JournalRow[]) => {
      for (const e of batch)
        insert.run(e.at, e.actor, e.transport, e.operation, e.outcome, Math.round(e.durationMs), e.detail ?? null);
    });
    this.present = db.prepare(
      'SELECT 1 FROM audit WHERE at = ? AND actor = ? AND transport = ? AND operation = ? AND outcome = ? LIMIT 1',
    );
    this.newest = db.prepare(`SELECT ${COLUMNS} FROM audit ORDER BY id DESC LIMIT ?`);
  }

  /**
   * Writes a batch in one transaction; `unsynced`, without its own fsync (synchronous=NORMAL for that one
   * transaction, see AuditLog).
   */
  write(batch: readonly JournalRow[], unsynced: boolean): void {
    // exec, not a prepared statement: SQLite applies this pragma when it compiles it.
    if (unsynced) this.db.exec('PRAGMA synchronous = NORMAL');
    try {
      this.writeAll(batch);
    } finally {
      if (unsynced) this.db.exec('PRAGMA synchronous = FULL');
    }
  }

  /** Whether a row like this one (same time, actor, transport, operation and outcome) is written already. */
  has(r: JournalRow): boolean {
    return this.present.get(r.at, r.actor, r.transport, r.operation, r.outcome) !== undefined;
  }

  recent(limit: number): AuditStoreRow[] {
    return this.newest.all(limit) as AuditStoreRow[];
  }

  /**
   * One page of the activity feed, newest first, one row more than `filter.limit` (so the caller knows
   * there is a next page); `own` is the feed's own operation, never listed; actors of tokens start with
   * `tokenActor`, of connectors with `connectorActor`.
   */
  activity(filter: ActivityFilter, own: string, tokenActor: string, connectorActor: string): AuditStoreRow[] {
    const where: string[] = ['operation <> ?'];
    const args: (string | number)[] = [own];
    if (filter.caller) {
      const { kind, id } = filter.caller;
      if (kind === 'operator' || kind === 'anonymous') {
        where.push('actor = ?');
        args.push(kind);
      } else if (kind === 'other') {
        where.push("actor NOT IN ('operator', 'anonymous') AND actor NOT LIKE 'token:%'");
      } else if (id !== undefined) {
        where.push('actor = ?');
        args.push(`${kind === 'connector' ? connectorActor : tokenActor}${id}`);
      } else {
        where.push("actor LIKE ? ESCAPE '\\'");
        args.push(likePrefix(kind === 'connector' ? connectorActor : tokenActor));
        if (kind === 'token') {
          where.push("actor NOT LIKE ? ESCAPE '\\'");
          args.push(likePrefix(connectorActor));
        }
      }
    }
    if (filter.operation) {
      where.push("(operation = ? OR operation LIKE ? ESCAPE '\\')");
      args.push(filter.operation, likePrefix(filter.operation));
    }
    if (filter.outcome) {
      where.push('outcome = ?');
      args.push(filter.outcome);
    }
    if (filter.before !== undefined) {
      where.push('id < ?');
      args.push(filter.before);
    }
    return this.db
      .prepare(`SELECT ${COLUMNS} FROM audit ` + `WHERE ${where.join(' AND ')} ORDER BY id DESC LIMIT ?`)
      .all(...args, filter.limit + 1) as AuditStoreRow[];
  }
}
