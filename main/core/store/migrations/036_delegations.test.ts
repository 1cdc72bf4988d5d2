import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { tempDir } from '../../../../test/helpers/temp-dir';
import { DelegationStore } from '../../mcp/delegation/delegation-store';
import { openStore } from '../open';
import { migrations } from '.';

describe('migration 036 delegations', () => {
  const dir = tempDir();
  afterEach(() => dir.remove());

  it('keeps every fleet credential as a delegation, with its constraints', () => {
    const file = join(dir.path, 'a.db');
    const before = openStore(file, migrations, 35);
    before
      .prepare('INSERT INTO tokens (id, name, class, hash, hint, created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?)')
      .run('t1', 'workspace w (fleet)', 'write', Buffer.alloc(32, 1), 'h', 'now', 'later');
    before
      .prepare(
        "INSERT INTO fleet_credentials (workspace_id, token_id, all_workspaces, created_at) VALUES ('ws1', 't1', 1, 'now')",
      )
      .run();
    before.close();

    const db = openStore(file, migrations);
    const store = new DelegationStore(db);
    expect(store.ofToken('t1')).toMatchObject({ workspace_id: 'ws1', token_id: 't1', all_workspaces: 1 });
    expect(db.prepare("SELECT name FROM sqlite_master WHERE name = 'fleet_credentials'").get()).toBeUndefined();
    const insert = db.prepare(
      'INSERT INTO delegations (workspace_id, token_id, all_workspaces, created_at) VALUES (?, ?, ?, ?)',
    );
    expect(() => insert.run('ws2', 't1', 0, 'now')).toThrow(/UNIQUE/);
    expect(() => insert.run('ws3', 'no-such-token', 0, 'now')).toThrow(/FOREIGN KEY/);
    db.close();
  });
});
