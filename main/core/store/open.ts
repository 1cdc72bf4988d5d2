import Database from 'better-sqlite3';
import { chmodSync, existsSync, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { migrate } from './migrate';
import { migrations } from './migrations';
import type { Migration } from './migrations/types';

export type Db = Database.Database;

/**
 * Runs `write` (statements outside a transaction, or one transaction) committed without an fsync. In WAL mode its
 * frames are written to the WAL file before the commit returns, so the write survives the process's death (`kill -9`,
 * a crash) but not the machine's before the next synced commit or checkpoint takes it to disk. For rows whose loss
 * on a power cut is tolerable and whose fsync per write is not (the gateway's ledger: a row per model answer, written
 * before the answer ends). Every other write stays synchronous=FULL.
 */
export function committedUnsynced<T>(db: Db, write: () => T): T {
  // Inside a transaction its commit decides (and the setting cannot change there).
  if (db.inTransaction) return write();
  // Each time through pragma(): SQLite applies this pragma when the statement is compiled, so a prepared one re-run
  // would change nothing.
  db.pragma('synchronous = NORMAL');
  try {
    return write();
  } finally {
    db.pragma('synchronous = FULL');
  }
}

/**
 * Opens (creating if needed) the app database: WAL for concurrent readers, synchronous=FULL because
 * the vault tables live here and a committed rotation must survive power loss, foreign keys on,
 * and a busy timeout so a second connection waits rather than fails.
 */
export function openStore(file: string, list: readonly Migration[] = migrations, upTo = Infinity): Db {
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  const fresh = !existsSync(file);
  const db = new Database(file);
  if (fresh) chmodSync(file, 0o600);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = FULL');
  db.pragma('foreign_keys = ON');
  db.pragma('busy_timeout = 5000');
  migrate(db, list, upTo);
  return db;
}
