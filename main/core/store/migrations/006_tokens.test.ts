import { afterEach, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { tempDir } from '../../../../test/helpers/temp-dir';
import { openStore } from '../open';
import { migrations } from '.';
import { migration006 } from './006_tokens';

describe('migration 006 tokens', () => {
  const dir = tempDir();
  afterEach(() => dir.remove());

  it('creates a tokens table that holds a hash, never a secret column', () => {
    const db = openStore(join(dir.path, 'a.db'), migrations, 6);
    expect(db.pragma('user_version', { simple: true })).toBe(6);
    const cols = (db.prepare('PRAGMA table_info(tokens)').all() as { name: string }[]).map((c) => c.name);
    expect(cols).toEqual([
      'id',
      'name',
      'class',
      'hash',
      'hint',
      'created_at',
      'expires_at',
      'revoked_at',
      'last_used_at',
    ]);
    expect(cols.some((c) => /secret|token$/.test(c))).toBe(false);
    db.close();
  });

  it('refuses an unknown class, a hash that is not 32 bytes and a duplicate hash', () => {
    const db = openStore(join(dir.path, 'b.db'), migrations, 6);
    const insert = db.prepare(
      'INSERT INTO tokens (id, name, class, hash, hint, created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?)',
    );
    const row = (id: string, cls: string, hash: Buffer) => insert.run(id, 'n', cls, hash, 'nxs_r_ab', 'now', 'later');
    row('a', 'read', Buffer.alloc(32, 1));
    expect(() => row('b', 'operator', Buffer.alloc(32, 2))).toThrow(/CHECK/);
    expect(() => row('c', 'read', Buffer.alloc(16, 3))).toThrow(/CHECK/);
    expect(() => row('d', 'write', Buffer.alloc(32, 1))).toThrow(/UNIQUE/);
    db.close();
  });

  it('is registered with the number reserved for tokens', () => {
    expect(migrations).toContain(migration006);
    expect(migration006.version).toBe(6);
  });
});
