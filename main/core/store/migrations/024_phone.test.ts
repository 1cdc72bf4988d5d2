import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { tempDir } from '../../../../test/helpers/temp-dir';
import { openStore } from '../open';
import { migrations } from '.';
import { migration024 } from './024_phone';

describe('migration 024 phone', () => {
  const dir = tempDir();
  afterEach(() => dir.remove());

  it('keys invites and sessions by a 32-byte hash, so no token or cookie value is stored', () => {
    const db = openStore(join(dir.path, 'a.db'), migrations, 24);
    const invite = db.prepare(
      "INSERT INTO phone_invites (token_hash, name, origin, created_at, expires_at) VALUES (?, 'p', 'o', 'now', 'later')",
    );
    invite.run(Buffer.alloc(32));
    expect(() => invite.run(Buffer.from('a-clear-token'))).toThrow(/CHECK/);
    const session = db.prepare(
      "INSERT INTO phone_sessions (id_hash, device_id, origin, created_at, expires_at) VALUES (?, 'd', 'o', 'now', 'later')",
    );
    expect(() => session.run(Buffer.from('a-cookie'))).toThrow(/CHECK/);
    db.close();
  });

  it('is registered after the agent kinds migration, with its reserved number', () => {
    expect(migrations[migrations.indexOf(migration024) - 1]?.version).toBe(23);
    expect(migration024.version).toBe(24);
  });
});
