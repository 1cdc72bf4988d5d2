import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { tempDir } from '../../../../test/helpers/temp-dir';
import { openStore } from '../open';
import { migrations } from '.';
import { migration020 } from './020_remote';

describe('migration 020 remote', () => {
  const dir = tempDir();
  afterEach(() => dir.remove());

  it('keys OAuth entries by a 32-byte hash and allows only read or write grants', () => {
    const db = openStore(join(dir.path, 'a.db'), migrations, 20);
    const cols = (db.prepare('PRAGMA table_info(oauth_entries)').all() as { name: string }[]).map((c) => c.name);
    expect(cols).toEqual(['model', 'id_hash', 'payload', 'grant_id', 'uid', 'expires_at']);
    expect(() =>
      db
        .prepare("INSERT INTO oauth_entries (model, id_hash, payload) VALUES ('AccessToken', ?, '{}')")
        .run(Buffer.alloc(8)),
    ).toThrow(/CHECK/);
    const grant = db.prepare(
      "INSERT INTO oauth_grants (id, client_id, client_name, redirect_uri, class, resource, created_at) VALUES (?, 'c', 'n', 'r', ?, 'x', 'now')",
    );
    grant.run('g1', 'write');
    expect(() => grant.run('g2', 'vault')).toThrow(/CHECK/);
    db.close();
  });

  it('is registered in order, with its reserved number', () => {
    expect(migrations.find((m) => m.version === 20)).toBe(migration020);
    expect(migrations.map((m) => m.version)).toEqual([...migrations.map((m) => m.version)].sort((a, b) => a - b));
  });
});
