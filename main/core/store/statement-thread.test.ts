import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import Database from 'better-sqlite3';
import { migrate } from './migrate';
import { openStore, type Db } from './open';
import { StatementThread } from './statement-thread';

const SQL = 'INSERT OR IGNORE INTO notes (id, body) VALUES (?, ?)';
const schema = [
  {
    version: 1,
    name: 'notes',
    up: (db: Db) => db.exec("CREATE TABLE notes (id TEXT PRIMARY KEY, body TEXT NOT NULL CHECK (body <> ''))"),
  },
];

describe('StatementThread', () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });
  const store = () => {
    const dir = mkdtempSync(join(tmpdir(), 'nexus-statement-thread-'));
    dirs.push(dir);
    return openStore(join(dir, 'nexus.db'), schema);
  };

  it('commits each run on its own connection before it resolves, readable at once on the caller’s', async () => {
    const db = store();
    const thread = new StatementThread(db, SQL);
    const runs = await Promise.all(Array.from({ length: 50 }, (_, i) => thread.run([`n${i}`, `body ${i}`])));
    expect(runs).toEqual(Array.from({ length: 50 }, () => 1));
    expect(db.prepare('SELECT COUNT(*) AS n FROM notes').get()).toEqual({ n: 50 });
    // The same id again changes nothing (the statement is idempotent), and says so.
    expect(await thread.run(['n0', 'again'])).toBe(0);
    expect(db.prepare("SELECT body FROM notes WHERE id = 'n0'").get()).toEqual({ body: 'body 0' });
    await thread.close();
    db.close();
  });

  it('rejects a run the database refuses with its reason, and goes on with the next', async () => {
    const db = store();
    const thread = new StatementThread(db, 'INSERT INTO notes (id, body) VALUES (?, ?)');
    expect(await thread.run(['x', 'first'])).toBe(1);
    await expect(thread.run(['x', 'second'])).rejects.toThrow(/UNIQUE constraint failed: notes.id/);
    await expect(thread.run(['y', ''])).rejects.toThrow(/CHECK constraint failed/);
    expect(await thread.run(['y', 'fine'])).toBe(1);
    await thread.close();
    db.close();
  });

  it('waits on close for the runs sent, and a run after close starts the thread again', async () => {
    const db = store();
    const thread = new StatementThread(db, SQL);
    const sent = [thread.run(['a', '1']), thread.run(['b', '2'])];
    await thread.close();
    expect(await Promise.all(sent)).toEqual([1, 1]);
    expect(await thread.run(['c', '3'])).toBe(1);
    await thread.close();
    expect(db.prepare('SELECT COUNT(*) AS n FROM notes').get()).toEqual({ n: 3 });
    db.close();
  });

  it('writes on the caller’s connection when its thread cannot open the store, and says why once', async () => {
    const db = store();
    const why: string[] = [];
    const thread = new StatementThread(db, 'INSERT OR IGNORE INTO missing_table VALUES (?)', (w) => why.push(w));
    // The thread's prepare fails (no such table), so the thread dies; the run is then tried here, and refused here.
    await expect(thread.run(['z'])).rejects.toThrow(/no such table: missing_table/);
    expect(why).toHaveLength(1);
    expect(why[0]).toMatch(/no such table/);
    db.exec('CREATE TABLE missing_table (v TEXT PRIMARY KEY)');
    expect(await thread.run(['z'])).toBe(1);
    expect(why).toHaveLength(1);
    db.close();
  });

  it('runs on the caller’s connection for an in-memory store (no file a thread could open)', async () => {
    const db = new Database(':memory:');
    migrate(db, schema);
    const thread = new StatementThread(db, SQL);
    expect(await thread.run(['m', 'in memory'])).toBe(1);
    expect(db.prepare('SELECT body FROM notes').get()).toEqual({ body: 'in memory' });
    await thread.close();
    db.close();
  });
});
