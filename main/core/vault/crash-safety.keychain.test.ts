import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { repoRoot, coreDb } from '../../../test/helpers/core';
import { vaultDataDir } from '../../../test/helpers/vault';
import { operatorContext } from '../handlers';

const op = operatorContext('internal');
const SECRETS = 40;
const valueOf = (i: number) => `crash-safety-value-${i}-${'x'.repeat(i % 7)}-end`;

const PASS = 'crash-safety vault passphrase';

/** Starts the rotation child, waits for "ready", lets it rotate for `ms`, then SIGKILLs it. */
function rotateThenKill(dataDir: string, ms: number, passphrase?: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [
        '--import',
        'tsx',
        'test/children/rotate-until-killed.ts',
        dataDir,
        ...(passphrase === undefined ? [] : [passphrase]),
      ],
      { cwd: repoRoot, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let err = '';
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.stdout.on('data', (d: Buffer) => {
      if (d.toString().includes('ready')) setTimeout(() => child.kill('SIGKILL'), ms);
    });
    child.on('exit', (code, signal) =>
      signal === 'SIGKILL' ? resolve() : reject(new Error(`child exited ${code}: ${err}`)),
    );
  });
}

// The keychain vault of a desktop, and the passphrase vault of a machine without a keychain.
describe.each([
  { mode: 'keychain', passphrase: undefined, TRIALS: 20 },
  // Fewer trials: each start costs two scrypt derivations (the child's unlock and the check's).
  { mode: 'passphrase', passphrase: PASS, TRIALS: 8 },
])('vault crash safety ($mode)', ({ passphrase, TRIALS }) => {
  const dir = vaultDataDir();
  const ids: string[] = [];
  beforeAll(async () => {
    const core = await dir.open();
    await core.dispatcher.call('vault.init', passphrase === undefined ? {} : { passphrase }, op);
    for (let i = 0; i < SECRETS; i++)
      ids.push(
        (await core.dispatcher.call('secrets.create', { name: `s${i}`, kind: 'generic', value: valueOf(i) }, op)).id,
      );
    await core.dispose();
  });
  afterAll(() => dir.remove());

  it(
    `keeps the database sound and every secret readable across ${TRIALS} SIGKILLs during key rotation`,
    { timeout: 300_000 },
    async () => {
      const terms: number[] = [];
      for (let trial = 0; trial < TRIALS; trial++) {
        await rotateThenKill(dir.path, Math.floor(Math.random() * 400), passphrase);
        const raw = new Database(join(dir.path, 'nexus.db'));
        expect(raw.pragma('integrity_check', { simple: true })).toBe('ok');
        raw.close();
        const core = await dir.open();
        if (passphrase !== undefined) {
          expect(core.vault.status().state).toBe('locked');
          await core.dispatcher.call('vault.unlock', { passphrase }, op);
        }
        const status = await core.dispatcher.call('vault.status', {}, op);
        expect(status.state).toBe('unlocked');
        terms.push(status.keyTerm!);
        for (const [i, id] of ids.entries()) expect((await core.vault.resolveSecret(id)).value).toBe(valueOf(i));
        const stale = coreDb(core)
          .prepare('SELECT count(*) AS n FROM secrets WHERE dek_term != ?')
          .get(status.keyTerm) as {
          n: number;
        };
        expect(stale.n).toBe(0);
        await core.dispose();
      }
      // The child really rotated between kills (the key term moved on).
      expect(terms.at(-1)!).toBeGreaterThan(TRIALS);
    },
  );
});
