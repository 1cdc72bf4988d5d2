import { describe, expect, it } from 'vitest';
import Database from 'better-sqlite3';
import { migrate } from './migrate';
import { migrations } from './migrations';

describe('migrate', () => {
  it('lists migrations with unique, ascending numbers', () => {
    const versions = migrations.map((m) => m.version);
    expect(versions).toEqual([...new Set(versions)].sort((a, b) => a - b));
  });

  it('applies all migrations to an empty database and records the last version', () => {
    const db = new Database(':memory:');
    expect(migrate(db, migrations)).toBe(migrations.at(-1)!.version);
    expect(db.pragma('user_version', { simple: true })).toBe(migrations.at(-1)!.version);
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

  it('applies a lower-numbered migration that arrives after a higher one, instead of skipping it', () => {
    const db = new Database(':memory:');
    const one = { version: 1, name: 'one', up: (d: Database.Database) => d.exec('CREATE TABLE one (x)') };
    const two = { version: 2, name: 'two', up: (d: Database.Database) => d.exec('CREATE TABLE two (x)') };
    const three = { version: 3, name: 'three', up: (d: Database.Database) => d.exec('CREATE TABLE three (x)') };
    migrate(db, [one, three]);
    expect(migrate(db, [one, two, three])).toBe(3);
    expect(db.prepare("SELECT name FROM sqlite_master WHERE name = 'two'").get()).toEqual({ name: 'two' });
    expect(migrate(db, [one, two, three])).toBe(3);
  });
});
