import type { Database } from 'better-sqlite3';

/** A numbered, forward-only schema change. Each has a test on a temp SQLite file beside it. */
export interface Migration {
  version: number;
  name: string;
  up(db: Database): void;
}
