import { afterEach, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { tempDir } from '../../../../test/helpers/temp-dir';
import { openStore } from '../open';
import { migrations } from '.';

describe('migration 003 platform tools', () => {
  const dir = tempDir();
  afterEach(() => dir.remove());

  it('creates agents, runs, tasks, memories with FTS, skills and board comments', () => {
    const db = openStore(join(dir.path, 'a.db'), migrations, 3);
    expect(db.pragma('user_version', { simple: true })).toBe(3);
    const tables = (db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as { name: string }[]).map(
      (t) => t.name,
    );
    for (const t of ['agents', 'runs', 'runs_fts', 'tasks', 'memories', 'memories_fts', 'skills', 'board_comments'])
      expect(tables).toContain(t);
    db.close();
  });

  it('keeps the memory index in step with inserts, edits and deletes', () => {
    const db = openStore(join(dir.path, 'b.db'), migrations, 3);
    const insert = db.prepare(
      "INSERT INTO memories (uid, content, scope, status, created_at) VALUES (?, ?, 'global', 'active', '2026-01-01')",
    );
    insert.run('m1', 'the quick brown fox');
    const match = (q: string) =>
      (db.prepare('SELECT rowid FROM memories_fts WHERE memories_fts MATCH ?').all(q) as unknown[]).length;
    expect(match('brown')).toBe(1);
    db.prepare("UPDATE memories SET content = 'a slow green turtle' WHERE uid = 'm1'").run();
    expect(match('brown')).toBe(0);
    expect(match('turtle')).toBe(1);
    db.prepare("DELETE FROM memories WHERE uid = 'm1'").run();
    expect(match('turtle')).toBe(0);
    db.close();
  });

  it('allows one active version per skill slug and refuses an unknown status', () => {
    const db = openStore(join(dir.path, 'c.db'), migrations, 3);
    const insert = db.prepare(
      'INSERT INTO skills (id, slug, version, name, description, markdown, status, created_at) ' +
        "VALUES (?, 'deploy', ?, 'n', 'd', 'm', ?, '2026')",
    );
    insert.run('s1', 1, 'active');
    insert.run('s2', 2, 'draft');
    expect(() => insert.run('s3', 3, 'active')).toThrow(/UNIQUE/);
    expect(() => insert.run('s4', 4, 'published')).toThrow(/CHECK/);
    expect(() => insert.run('s5', 2, 'draft')).toThrow(/UNIQUE/);
    db.close();
  });

  it('is not applied twice when the file is reopened', () => {
    const file = join(dir.path, 'd.db');
    openStore(file, migrations, 3).close();
    const db = openStore(file, migrations, 3);
    expect(db.pragma('user_version', { simple: true })).toBe(3);
    db.close();
  });
});
