import { afterEach, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { tempDir } from '../../../../test/helpers/temp-dir';
import { openStore } from '../open';
import { migrations } from '.';

const columns = (db: ReturnType<typeof openStore>, table: string): string[] =>
  (db.prepare(`PRAGMA table_info(${table})`).all() as { name: string }[]).map((c) => c.name);

describe('migration 002 vault', () => {
  const dir = tempDir();
  afterEach(() => dir.remove());

  it('upgrades a foundation database to the vault tables', () => {
    const file = join(dir.path, 'a.db');
    openStore(file, migrations, 1).close();
    const db = openStore(file, migrations, 2);
    expect(db.pragma('user_version', { simple: true })).toBe(2);
    expect(columns(db, 'vault_meta')).toEqual([
      'id',
      'vault_id',
      'keychain_account',
      'dek_term',
      'created_at',
      'rotated_at',
    ]);
    expect(columns(db, 'vault_principals')).toContain('wrapped_dek');
    expect(columns(db, 'secrets')).toEqual([
      'id',
      'name',
      'kind',
      'host',
      'last4',
      'dek_term',
      'sealed_value',
      'created_at',
      'updated_at',
    ]);
    db.close();
  });

  it('allows a single metadata row and only known principal and secret kinds', () => {
    const db = openStore(join(dir.path, 'b.db'), migrations, 2);
    const meta = db.prepare(
      "INSERT INTO vault_meta (id, vault_id, keychain_account, dek_term, created_at) VALUES (?, 'v', 'a', 1, 'now')",
    );
    meta.run(1);
    expect(() => meta.run(2)).toThrow(/CHECK/);
    expect(() =>
      db
        .prepare(
          "INSERT INTO vault_principals VALUES ('x', 'admin', x'00', x'00', '{}', 1, x'00', x'00', 'now', 'now')",
        )
        .run(),
    ).toThrow(/CHECK/);
    expect(() =>
      db.prepare("INSERT INTO secrets VALUES ('s', 'n', 'bitbucket', '', '', 1, x'00', 'now', 'now')").run(),
    ).toThrow(/CHECK/);
    db.close();
  });
});
