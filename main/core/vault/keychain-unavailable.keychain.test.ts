import { afterEach, describe, expect, it } from 'vitest';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { repoRoot, coreDb } from '../../../test/helpers/core';
import { vaultDataDir } from '../../../test/helpers/vault';
import { operatorContext } from '../handlers';

const run = promisify(execFile);
const op = operatorContext('internal');
const PASS = 'recovery passphrase for the no-bus test';

/** Runs the open-vault child with a session bus address that leads nowhere: no Secret Service. */
async function withoutKeychain(
  dataDir: string,
  ...args: string[]
): Promise<
  Record<string, { state?: string; reason?: string; code?: string; message?: string } & Record<string, unknown>>
> {
  const env = { ...process.env, DBUS_SESSION_BUS_ADDRESS: 'unix:path=/nonexistent/nexus-no-bus' };
  const { stdout } = await run(process.execPath, ['--import', 'tsx', 'test/children/open-vault.ts', dataDir, ...args], {
    cwd: repoRoot,
    env,
    timeout: 60_000,
  });
  return JSON.parse(stdout.trim().split('\n').at(-1)!) as never;
}

describe('vault without a reachable keychain', () => {
  const dirs: ReturnType<typeof vaultDataDir>[] = [];
  afterEach(() => {
    for (const d of dirs.splice(0)) d.remove();
  });

  it('starts locked with a reason naming the keychain, and still unlocks with the recovery passphrase', async () => {
    const dir = vaultDataDir();
    dirs.push(dir);
    const core = await dir.open();
    await core.dispatcher.call('vault.init', { recoveryPassphrase: PASS }, op);
    await core.dispatcher.call(
      'secrets.create',
      { name: 'gh', kind: 'github', value: 'ghp_noBusTestValue0123456789abcdef' },
      op,
    );
    await core.dispose();

    const out = await withoutKeychain(dir.path, 'unlock', PASS);
    expect(out.started).toMatchObject({ state: 'locked' });
    expect(out.started!.reason).toMatch(/OS keychain .*not reachable/);
    expect(out.board).toEqual({ state: 'locked', reason: out.started!.reason, mode: 'keychain' });
    expect(out.unlocked).toMatchObject({ state: 'unlocked' });
    expect(out.resolved).toEqual(['ghp_noBusTestValue0123456789abcdef'.length]);
    expect(out.error).toBeUndefined();
  });

  it('refuses to set up a vault rather than keep its key anywhere else', async () => {
    const dir = vaultDataDir();
    dirs.push(dir);
    const out = await withoutKeychain(dir.path, 'init');
    expect(out.started).toMatchObject({ state: 'uninitialized' });
    expect(out.error).toMatchObject({
      code: 'unavailable',
      message: expect.stringMatching(/OS keychain .*not reachable.*nothing was stored/),
    });
    const core = await dir.open();
    expect((await core.dispatcher.call('vault.status', {}, op)).state).toBe('uninitialized');
    expect(coreDb(core).prepare('SELECT count(*) AS n FROM vault_principals').get()).toEqual({ n: 0 });
    await core.dispose();
  });
});
