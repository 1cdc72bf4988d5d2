import { afterEach, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { tempDir } from '../../../../test/helpers/temp-dir';
import { openStore } from '../open';
import { migrations } from '.';

describe('migration 001 foundation', () => {
  const dir = tempDir();
  afterEach(() => dir.remove());

  it('creates the audit table on a fresh file with WAL and foreign keys on', () => {
    const db = openStore(join(dir.path, 'a.db'), migrations, 1);
    expect(db.pragma('user_version', { simple: true })).toBe(1);
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(db.pragma('foreign_keys', { simple: true })).toBe(1);
    const cols = (db.prepare('PRAGMA table_info(audit)').all() as { name: string }[]).map((c) => c.name);
    expect(cols).toEqual(['id', 'at', 'actor', 'transport', 'operation', 'outcome', 'duration_ms', 'detail']);
    db.close();
  });

  it('is not applied twice when the file is reopened', () => {
    const file = join(dir.path, 'b.db');
    openStore(file, migrations, 1).close();
    const db = openStore(file, migrations, 1);
    expect(db.pragma('user_version', { simple: true })).toBe(1);
    db.close();
  });
});
