import type { Migration } from './types';

/** Audit log: who did what, through which transport, with what outcome. */
export const migration001: Migration = {
  version: 1,
  name: 'foundation',
  up(db) {
    db.exec(`
      CREATE TABLE audit (
        id INTEGER PRIMARY KEY,
        at TEXT NOT NULL,
        actor TEXT NOT NULL,
        transport TEXT NOT NULL,
        operation TEXT NOT NULL,
        outcome TEXT NOT NULL,
        duration_ms INTEGER NOT NULL,
        detail TEXT
      );
      CREATE INDEX audit_at ON audit(at);
    `);
  },
};
