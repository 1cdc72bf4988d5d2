import { afterEach, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { tempDir } from '../../../../test/helpers/temp-dir';
import { openStore } from '../open';
import { migrations } from '.';
import { migration009 } from './009_fleet';

describe('migration 009 fleet', () => {
  const dir = tempDir();
  afterEach(() => dir.remove());

  it('links one token to one workspace, never a secret column', () => {
    const db = openStore(join(dir.path, 'a.db'), migrations, 9);
    const cols = (db.prepare('PRAGMA table_info(fleet_credentials)').all() as { name: string }[]).map((c) => c.name);
    expect(cols).toEqual(['workspace_id', 'token_id', 'all_workspaces', 'created_at']);
    db.prepare(
      "INSERT INTO tokens (id, name, class, hash, hint, created_at, expires_at) VALUES ('t1', 'n', 'write', ?, 'h', 'now', 'later')",
    ).run(Buffer.alloc(32, 1));
    const insert = db.prepare(
      'INSERT INTO fleet_credentials (workspace_id, token_id, all_workspaces, created_at) VALUES (?, ?, ?, ?)',
    );
    insert.run('ws1', 't1', 0, 'now');
    expect(() => insert.run('ws2', 't1', 0, 'now')).toThrow(/UNIQUE/);
    expect(() => insert.run('ws3', 'no-such-token', 0, 'now')).toThrow(/FOREIGN KEY/);
    expect(() => insert.run('ws1', 't1', 2, 'now')).toThrow(/CHECK|UNIQUE/);
    db.close();
  });

  it('is registered after the agent migration', () => {
    expect(migrations[migrations.indexOf(migration009) - 1]?.version).toBe(8);
    expect(migration009.version).toBe(9);
  });
});
