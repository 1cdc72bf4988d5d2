import { afterEach, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { tempDir } from '../../../../test/helpers/temp-dir';
import { openStore } from '../open';
import { migrations } from '.';

describe('migration 021 engines', () => {
  const dir = tempDir();
  afterEach(() => dir.remove());

  it('keeps every stored secret, accepts an SSH key and TLS material, and puts existing workspaces on the local engine', () => {
    const file = join(dir.path, 'a.db');
    const old = openStore(file, migrations, 10);
    const put = (id: string, name: string, kind: string) =>
      old
        .prepare(
          'INSERT INTO secrets (id, name, kind, host, last4, dek_term, sealed_value, created_at, updated_at) ' +
            "VALUES (?, ?, ?, '', 'abcd', 1, x'0102', 'then', 'then')",
        )
        .run(id, name, kind);
    put('s1', 'key', 'anthropic_api_key');
    expect(() => put('s2', 'ssh', 'ssh_private_key')).toThrow(/CHECK/);
    old
      .prepare(
        `INSERT INTO workspaces (id, name, repo_url, status, volume, created_at, updated_at)
         VALUES ('w1', 'one', '/r', 'running', 'v', 'then', 'then')`,
      )
      .run();
    old.close();

    const db = openStore(file, migrations, 21);
    expect(db.prepare('SELECT id, kind, sealed_value FROM secrets').all()).toEqual([
      { id: 's1', kind: 'anthropic_api_key', sealed_value: Buffer.from([1, 2]) },
    ]);
    const insert = db.prepare(
      'INSERT INTO secrets (id, name, kind, host, last4, dek_term, sealed_value, created_at, updated_at) ' +
        "VALUES (?, ?, ?, '', '', 1, x'00', 'now', 'now')",
    );
    insert.run('s2', 'ssh', 'ssh_private_key');
    insert.run('s3', 'ca', 'tls_certificate');
    insert.run('s4', 'tlskey', 'tls_private_key');
    expect(() => insert.run('s5', 'other', 'password')).toThrow(/CHECK/);
    expect(db.prepare('SELECT engine FROM workspaces').all()).toEqual([{ engine: 'local' }]);
    db.prepare(
      "INSERT INTO engines (id, name, kind, url, created_at) VALUES ('e1', 'big', 'ssh', 'ssh://a@b', 'now')",
    ).run();
    expect(() =>
      db
        .prepare("INSERT INTO engines (id, name, kind, url, created_at) VALUES ('e2', 'big', 'tls', 'tcp://c', 'now')")
        .run(),
    ).toThrow(/UNIQUE/);
    db.close();
  });
});
