import Database from 'better-sqlite3';
import { chmodSync, existsSync, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { migrate } from './migrate';
import { migrations } from './migrations';
import type { Migration } from './migrations/types';

export type Db = Database.Database;

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
