import { execFileSync } from 'node:child_process';
import { closeSync, mkdirSync, openSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nodePorts } from './node-ports';
import { repoRoot } from '../../test/helpers/core';
import { tempDir } from '../../test/helpers/temp-dir';
import { createCore, type Core } from '../core';
import { operatorContext } from '../core/handlers';

const op = operatorContext('internal');

/** Writes zeros into `file` until the filesystem says ENOSPC; returns the bytes written. */
function fillUp(file: string): number {
  const fd = openSync(file, 'w');
  let written = 0;
  try {
    for (const size of [1 << 20, 1 << 16, 1 << 12, 1 << 9, 1]) {
      const chunk = Buffer.alloc(size);
      for (;;) {
        try {
          written += writeSync(fd, chunk);
        } catch (e) {
          if ((e as NodeJS.ErrnoException).code !== 'ENOSPC') throw e;
          break;
        }
      }
    }
  } finally {
    closeSync(fd);
  }
  return written;
}

// Issue 17, item 6: the data directory's disk full. The data directory is a tiny tmpfs (the test
// runs as root, as scripts/test.sh does); once it is full, operations that write are refused with a
// typed error, core keeps running, and afterwards the SQLite file is intact and the vault opens.
describe('the data directory on a full disk', () => {
  const dir = tempDir('nexus-diskfull-');
  const dataDir = join(dir.path, 'data');
  const filler = join(dataDir, 'filler');
  let core: Core;
  let secretId: string;

  beforeAll(async () => {
    mkdirSync(dataDir);
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=16m', 'tmpfs', dataDir]);
    core = await createCore({ version: 'test' }, nodePorts(dataDir, repoRoot));
    await core.dispatcher.call('vault.init', {}, op);
    secretId = (
      await core.dispatcher.call(
        'secrets.create',
        { name: 'kept', kind: 'generic', host: '', value: 'kept-value-0123456789' },
        op,
      )
    ).id;
  });
  afterAll(async () => {
    await core?.dispose().catch(() => undefined);
    execFileSync('umount', ['-l', dataDir]);
    dir.remove();
  });

  it('refuses writes with a typed error while the disk is full, and keeps serving reads', async () => {
    expect(fillUp(filler)).toBeGreaterThan(0);
    const big = 'x'.repeat(16_384);
    const writes = [
      () => core.dispatcher.call('secrets.create', { name: 'big', kind: 'generic', host: '', value: big }, op),
      () => core.dispatcher.call('tokens.create', { name: 'full', class: 'read' }, op),
      () => core.dispatcher.call('vault.changePassphrase', { newPassphrase: 'a fine long passphrase' }, op),
    ];
    for (const write of writes) {
      await expect(write()).rejects.toMatchObject({
        code: 'unavailable',
        message: expect.stringMatching(/disk .*full/i),
      });
    }
    expect(core.vault.status().state).toBe('unlocked');
    expect((await core.vault.resolveSecret(secretId)).value).toBe('kept-value-0123456789');
    expect((await core.dispatcher.call('secrets.list', {}, op)).secrets.map((s) => s.name)).toEqual(['kept']);
  });

  it('leaves an intact database and a vault that opens once space is back', async () => {
    rmSync(filler);
    expect((await core.dispatcher.call('tokens.create', { name: 'after', class: 'read' }, op)).token.name).toBe(
      'after',
    );
    await core.dispose();
    const db = new Database(join(dataDir, 'nexus.db'), { readonly: true });
    try {
      expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
    } finally {
      db.close();
    }
    core = await createCore({ version: 'test' }, nodePorts(dataDir, repoRoot));
    expect(core.vault.status().state).toBe('unlocked');
    expect((await core.vault.resolveSecret(secretId)).value).toBe('kept-value-0123456789');
  });
});
