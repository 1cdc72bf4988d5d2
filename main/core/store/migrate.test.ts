import { describe, expect, it } from 'vitest';
import Database from 'better-sqlite3';
import { migrate } from './migrate';
import { migrations } from './migrations';

describe('migrate', () => {
  it('numbers every migration 1..n without gaps', () => {
    expect(migrations.map((m) => m.version)).toEqual(migrations.map((_m, i) => i + 1));
  });

  it('applies all migrations to an empty database and records the last version', () => {
    const db = new Database(':memory:');
    expect(migrate(db, migrations)).toBe(migrations.length);
    expect(db.pragma('user_version', { simple: true })).toBe(migrations.length);
  });

  it('rolls a failing migration back entirely and leaves the version where it was', () => {
    const db = new Database(':memory:');
    const broken = [
      { version: 1, name: 'ok', up: (d: Database.Database) => d.exec('CREATE TABLE a (x)') },
      { version: 2, name: 'broken', up: (d: Database.Database) => d.exec('CREATE TABLE b (x); SELECT * FROM nope') },
    ];
    expect(() => migrate(db, broken)).toThrow(/nope/);
    expect(db.pragma('user_version', { simple: true })).toBe(1);
    expect(db.prepare("SELECT name FROM sqlite_master WHERE name = 'b'").get()).toBeUndefined();
  });
});
