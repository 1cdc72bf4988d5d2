import { afterEach, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { tempDir } from '../../../../test/helpers/temp-dir';
import { openStore } from '../open';
import { migrations } from '.';

describe('migration 008 agent', () => {
  const dir = tempDir();
  afterEach(() => dir.remove());

  it('keeps every stored secret and accepts the agent credential kinds', () => {
    const file = join(dir.path, 'a.db');
    const old = openStore(file, migrations, 7);
    const put = (id: string, name: string, kind: string) =>
      old
        .prepare(
          'INSERT INTO secrets (id, name, kind, host, last4, dek_term, sealed_value, created_at, updated_at) ' +
            "VALUES (?, ?, ?, 'github.com', 'abcd', 1, x'0102', 'then', 'then')",
        )
        .run(id, name, kind);
    put('s1', 'gh', 'github');
    expect(() => put('s2', 'key', 'anthropic_api_key')).toThrow(/CHECK/);
    old.close();

    const db = openStore(file, migrations, 8);
    expect(db.prepare('SELECT id, name, kind, last4, sealed_value FROM secrets').all()).toEqual([
      { id: 's1', name: 'gh', kind: 'github', last4: 'abcd', sealed_value: Buffer.from([1, 2]) },
    ]);
    const insert = db.prepare(
      'INSERT INTO secrets (id, name, kind, host, last4, dek_term, sealed_value, created_at, updated_at) ' +
        "VALUES (?, ?, ?, '', '', 1, x'00', 'now', 'now')",
    );
    insert.run('s2', 'key', 'anthropic_api_key');
    insert.run('s3', 'token', 'claude_oauth_token');
    expect(() => insert.run('s4', 'other', 'openai')).toThrow(/CHECK/);
    expect(() => insert.run('s5', 'gh', 'github')).toThrow(/UNIQUE/);
    db.close();
  });

  it('gives workspaces an agent credential and a bypass flag, and holds one default credential row', () => {
    const db = openStore(join(dir.path, 'b.db'), migrations, 8);
    const cols = (db.prepare('PRAGMA table_info(workspaces)').all() as { name: string }[]).map((c) => c.name);
    expect(cols).toEqual(expect.arrayContaining(['agent_secret_id', 'bypass_permissions']));
    const row = db.prepare("INSERT INTO agent_settings (id, default_secret_id, updated_at) VALUES (?, 's2', 'now')");
    row.run(1);
    expect(() => row.run(2)).toThrow(/CHECK/);
    db.close();
  });
});
