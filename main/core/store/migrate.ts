import type { Database } from 'better-sqlite3';
import type { Migration } from './migrations/types';

/**
 * Applies every migration not yet applied, in ascending order, each in its own transaction, and
 * records it in `schema_migrations`. Numbers are reserved per feature (see migrations/index.ts), so
 * a lower number may arrive after a higher one was applied: it is applied then, not skipped.
 * `user_version` mirrors the highest applied number for tools that read it.
 */
export function migrate(db: Database, list: readonly Migration[], upTo = Infinity): number {
  const fresh = !db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'").get();
  db.exec(
    'CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)',
  );
  const sorted = [...list].sort((a, b) => a.version - b.version);
  if (fresh) {
    // A database from before this table existed: everything up to user_version was applied.
    const legacy = db.pragma('user_version', { simple: true }) as number;
    const mark = db.prepare('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)');
    for (const m of sorted) if (m.version <= legacy) mark.run(m.version, m.name, new Date().toISOString());
  }
  const applied = new Set(
    (db.prepare('SELECT version FROM schema_migrations').all() as { version: number }[]).map((r) => r.version),
  );
  const record = db.prepare('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)');
  for (const m of sorted) {
    if (applied.has(m.version) || m.version > upTo) continue;
    db.transaction(() => {
      m.up(db);
      record.run(m.version, m.name, new Date().toISOString());
      const max = Math.max(m.version, db.pragma('user_version', { simple: true }) as number);
      db.pragma(`user_version = ${max}`);
    })();
    applied.add(m.version);
  }
  return db.pragma('user_version', { simple: true }) as number;
}
