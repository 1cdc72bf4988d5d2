import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { tempDir } from '../../../../test/helpers/temp-dir';
import { openStore } from '../open';
import { migrations } from '.';
import { migration025 } from './025_core_secrets';

describe('migration 025 core secrets', () => {
  const dir = tempDir();
  afterEach(() => dir.remove());

  it('keeps one sealed value per keychain name, with its key term, and no clear column', () => {
    const db = openStore(join(dir.path, 'a.db'), migrations, 25);
    const cols = (db.prepare('PRAGMA table_info(core_secrets)').all() as { name: string }[]).map((c) => c.name);
    expect(cols).toEqual(['service', 'account', 'dek_term', 'sealed_value', 'updated_at']);
    const insert = db.prepare(
      'INSERT INTO core_secrets (service, account, dek_term, sealed_value, updated_at) VALUES (?, ?, ?, ?, ?)',
    );
    insert.run('Nexus Desktop fleet', 'fleet:a:ws1', 1, Buffer.alloc(60, 7), 'now');
    expect(() => insert.run('Nexus Desktop fleet', 'fleet:a:ws1', 1, Buffer.alloc(60, 7), 'now')).toThrow(/UNIQUE/);
    expect(() => insert.run('Nexus Desktop fleet', 'fleet:a:ws2', 0, Buffer.alloc(60, 7), 'now')).toThrow(/CHECK/);
    // No longer than a sealed box's header and tag: an empty or truncated value is refused.
    expect(() => insert.run('Nexus Desktop fleet', 'fleet:a:ws3', 1, Buffer.alloc(33), 'now')).toThrow(/CHECK/);
    db.close();
  });

  it('is registered after the phone migration, with the next number', () => {
    expect(migrations[migrations.indexOf(migration025) - 1]?.version).toBe(24);
    expect(migration025.version).toBe(25);
  });
});
