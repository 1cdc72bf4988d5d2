import {
  closeSync,
  fstatSync,
  ftruncateSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeSync,
} from 'node:fs';
import { join } from 'node:path';

/** An audit row as the journal holds it (the entry and its time). */
export interface JournalRow {
  at: string;
  actor: string;
  transport: string;
  operation: string;
  outcome: string;
  durationMs: number;
  detail?: string;
}

const FILE = /^(\d+)\.jsonl$/;

/**
 * Where successful reads' audit rows wait for their group commit: one append-only file per
 * process (`<dir>/<pid>.jsonl`). A row is written to it with one write(2) when it is recorded,
 * which is before the call answers, so once a caller has its answer a crash or kill of Nexus
 * cannot lose the row (the OS holds it; a power cut can, as with any unsynced write). The file is
 * emptied after each commit that took its rows; `leftovers` hands back what a process that is gone
 * left behind, so the next start puts it in the database.
 */
export class AuditJournal {
  private fd: number | null;
  private written = 0;
  readonly file: string;

  private constructor(file: string) {
    this.file = file;
    // Appending: every write lands at the end, also after `clear` truncated the file.
    this.fd = openSync(file, 'a', 0o600);
    this.written = fstatSync(this.fd).size;
  }

  /**
   * Opens this process's journal in `dir`, after `importRows` took every row of earlier ones (any
   * file whose process is no longer running, this pid's too: a restarted container reuses pids).
   * A file is removed only once its rows were imported (a failed import leaves it for the next
   * start); a torn last line (power cut) is skipped.
   */
  static open(dir: string, importRows: (rows: JournalRow[]) => void): AuditJournal {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    for (const name of readdirSync(dir)) {
      const pid = Number(FILE.exec(name)?.[1] ?? NaN);
      if (!Number.isInteger(pid) || (pid !== process.pid && running(pid))) continue;
      const file = join(dir, name);
      try {
        importRows(parseRows(readFileSync(file, 'utf8')));
        rmSync(file, { force: true });
      } catch {
        // Kept (disk full, busy): imported at a later start, its rows checked against what is there.
      }
    }
    return new AuditJournal(join(dir, `${process.pid}.jsonl`));
  }

  /** Appends a row; false when it could not be written (disk full, closed): the caller commits it at once instead. */
  append(row: JournalRow): boolean {
    if (this.fd === null) return false;
    try {
      this.written += writeSync(this.fd, `${JSON.stringify(row)}\n`);
      return true;
    } catch {
      return false;
    }
  }

  /** Empties the file once the rows in it are committed. */
  clear(): void {
    if (this.fd === null || this.written === 0) return;
    ftruncateSync(this.fd, 0);
    this.written = 0;
  }

  /** Closes the file; removes it when it holds nothing (else the next start imports it). */
  close(): void {
    if (this.fd === null) return;
    closeSync(this.fd);
    this.fd = null;
    if (this.written === 0) rmSync(this.file, { force: true });
  }
}

function running(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function parseRows(text: string): JournalRow[] {
  const rows: JournalRow[] = [];
  for (const line of text.split('\n')) {
    if (line.length === 0) continue;
    try {
      const r = JSON.parse(line) as Partial<JournalRow>;
      if (
        typeof r.at === 'string' &&
        typeof r.actor === 'string' &&
        typeof r.transport === 'string' &&
        typeof r.operation === 'string' &&
        typeof r.outcome === 'string' &&
        typeof r.durationMs === 'number' &&
        (r.detail === undefined || typeof r.detail === 'string')
      )
        rows.push(r as JournalRow);
    } catch {
      // A line cut short by a power loss: nothing after it was written either.
    }
  }
  return rows;
}
