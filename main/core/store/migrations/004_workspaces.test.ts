import { afterEach, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { tempDir } from '../../../../test/helpers/temp-dir';
import { openStore } from '../open';
import { migrations } from '.';

describe('migration 004 workspaces', () => {
  const dir = tempDir();
  afterEach(() => dir.remove());

  it('creates the workspaces table with a unique name and a checked status', () => {
    const db = openStore(join(dir.path, 'w.db'), migrations, 4);
    const cols = (db.prepare('PRAGMA table_info(workspaces)').all() as { name: string }[]).map((c) => c.name);
    expect(cols).toEqual([
      'id',
      'name',
      'repo_url',
      'secret_id',
      'image',
      'status',
      'reason',
      'container_id',
      'volume',
      'created_at',
      'updated_at',
    ]);
    const insert = db.prepare(
      'INSERT INTO workspaces (id, name, repo_url, status, volume, created_at, updated_at) ' +
        "VALUES (?, ?, 'http://x/r.git', ?, 'v', 't', 't')",
    );
    insert.run('a', 'one', 'creating');
    expect(() => insert.run('b', 'one', 'creating')).toThrow(/UNIQUE/);
    expect(() => insert.run('c', 'two', 'exploded')).toThrow(/CHECK/);
    db.close();
  });

  it('is not applied twice when the file is reopened', () => {
    const file = join(dir.path, 'w2.db');
    openStore(file, migrations, 4).close();
    const db = openStore(file, migrations, 4);
    expect(db.pragma('user_version', { simple: true })).toBe(4);
    db.close();
  });
});
