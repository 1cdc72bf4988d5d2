import type { Db } from '../store';

/** The remote features' key/value settings (`remote_settings`: the public origin, the phone UI switch, VAPID keys). */
export class PublicOriginSettings {
  constructor(private readonly db: Db) {}

  get(key: string): string | null {
    const row = this.db.prepare('SELECT value FROM remote_settings WHERE key = ?').get(key) as
      { value: string } | undefined;
    return row?.value ?? null;
  }

  /** Stores a value; null removes the key. */
  set(key: string, value: string | null): void {
    if (value === null) this.db.prepare('DELETE FROM remote_settings WHERE key = ?').run(key);
    else
      this.db
        .prepare(
          'INSERT INTO remote_settings (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value',
        )
        .run(key, value);
  }
}
