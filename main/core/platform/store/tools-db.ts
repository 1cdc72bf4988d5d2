import Database from 'better-sqlite3';
import type { Db } from '../../store';

/**
 * A second connection to the app database for what agents write at tool-call rate (proposals,
 * board comments, tasks). synchronous=NORMAL in WAL mode: a power cut may lose the last few of
 * these rows but never corrupts the file; the main connection keeps synchronous=FULL for the vault.
 * The schema is already migrated by the main connection.
 */
export function openToolsDb(file: string): Db {
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma('foreign_keys = ON');
  db.pragma('busy_timeout = 5000');
  return db;
}
