import type { Db } from '../store';

/** The remote features' key/value settings (`remote_settings`: the public origin, the phone UI switch, VAPID keys). */
export class PublicOriginStore {
  private readonly read;
  private readonly remove;
  private readonly write;

  constructor(db: Db) {
    this.read = db.prepare('SELECT value FROM remote_settings WHERE key = ?');
    this.remove = db.prepare('DELETE FROM remote_settings WHERE key = ?');
    this.write = db.prepare(
      'INSERT INTO remote_settings (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value',
    );
  }

  get(key: string): string | null {
    const row = this.read.get(key) as { value: string } | undefined;
    return row?.value ?? null;
  }

  /** Stores a value; null removes the key. */
  set(key: string, value: string | null): void {
    if (value === null) this.remove.run(key);
    else this.write.run(key, value);
  }
}
