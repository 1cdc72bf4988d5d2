import type { Database } from 'better-sqlite3';
import type { Migration } from './migrations/types';

/**
 * Applies every migration newer than `user_version`, in order, each in its own transaction.
 * Numbers are fixed per feature (see migrations/index.ts) and must be unique and ascending.
 */
export function migrate(db: Database, list: readonly Migration[], upTo = Infinity): number {
  const current = db.pragma('user_version', { simple: true }) as number;
  let version = current;
  for (const m of [...list].sort((a, b) => a.version - b.version)) {
    if (m.version <= version || m.version > upTo) continue;
    db.transaction(() => {
      m.up(db);
      db.pragma(`user_version = ${m.version}`);
    })();
    version = m.version;
  }
  return version;
}
