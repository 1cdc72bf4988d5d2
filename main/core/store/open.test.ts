import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { tempDir } from '../../../test/helpers/temp-dir';
import { committedUnsynced, openStore, type Db } from './open';

const synchronous = (db: Db): number => db.pragma('synchronous', { simple: true }) as number;
const FULL = 2;
const NORMAL = 1;

describe('the store’s durability', () => {
  let dir: { path: string; remove(): void };
  let db: Db;
  beforeEach(() => {
    dir = tempDir('nexus-store-');
    db = openStore(join(dir.path, 'nexus.db'), []);
    db.exec('CREATE TABLE t (v INTEGER)');
  });
  afterEach(() => {
    db.close();
    dir.remove();
  });

  it('opens in WAL mode with every commit synced', () => {
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(synchronous(db)).toBe(FULL);
  });

  it('commits an unsynced write without an fsync, then syncs every later commit again, even when it throws', () => {
    expect(committedUnsynced(db, () => (db.prepare('INSERT INTO t VALUES (1)').run(), synchronous(db)))).toBe(NORMAL);
    expect(synchronous(db)).toBe(FULL);
    expect(() =>
      committedUnsynced(db, () => {
        throw new Error('refused');
      }),
    ).toThrow('refused');
    expect(synchronous(db)).toBe(FULL);
    expect(db.prepare('SELECT COUNT(*) AS n FROM t').get()).toEqual({ n: 1 });
  });

  it('inside a transaction leaves the setting to that transaction’s commit', () => {
    const seen = db.transaction(() => committedUnsynced(db, () => synchronous(db)))();
    expect(seen).toBe(FULL);
  });
});
