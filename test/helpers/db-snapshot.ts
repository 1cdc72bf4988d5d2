import { createHash } from 'node:crypto';
import type { Db } from '../../main/core/store/open';

/**
 * Every table of a Nexus database as a digest of its rows, for "nothing changed" checks. The audit
 * log (which records refusals on purpose) and a token's last-use time are left out; full-text index
 * shadow tables follow their content tables and are skipped.
 */
export function dbSnapshot(db: Db): Record<string, string> {
  const tables = db
    .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")
    .all() as { name: string }[];
  const out: Record<string, string> = {};
  for (const { name } of tables) {
    if (name === 'audit' || /_fts(_|$)/.test(name)) continue;
    const rows = db.prepare(`SELECT * FROM "${name}" ORDER BY rowid`).all() as Record<string, unknown>[];
    const kept = rows.map((r) => (name === 'tokens' ? { ...r, last_used_at: null } : r));
    const text = JSON.stringify(kept, (_k, v: unknown) => (Buffer.isBuffer(v) ? v.toString('base64') : v));
    out[name] = `${rows.length}:${createHash('sha256').update(text).digest('hex').slice(0, 16)}`;
  }
  return out;
}
