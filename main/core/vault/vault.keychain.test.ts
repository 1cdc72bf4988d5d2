import { afterEach, describe, expect, it } from 'vitest';
import type { EventMessage } from '../../../shared/contract';
import { vaultDataDir } from '../../../test/helpers/vault';
import type { Core } from '..';
import { operatorContext } from '../handlers';
import { OsKeychain } from './os-keychain';
import { KEYCHAIN_SERVICE } from './operator-key';
import { coreDb } from '../../../test/helpers/core';

const op = operatorContext('internal');
const PASS = 'correct horse battery staple';
const TOKEN = 'ghp_vaultLifecycleToken1234567890abcd';

describe('vault lifecycle with the OS keychain', () => {
  const dirs: ReturnType<typeof vaultDataDir>[] = [];
  const cores: Core[] = [];
  const fresh = () => {
    const d = vaultDataDir();
    dirs.push(d);
    return d;
  };
  const start = async (d: ReturnType<typeof vaultDataDir>) => {
    const core = await d.open();
    cores.push(core);
    return core;
  };
  afterEach(async () => {
    for (const c of cores.splice(0)) await c.dispose();
    for (const d of dirs.splice(0)) d.remove();
  });

  const account = (core: Core) =>
    (coreDb(core).prepare('SELECT keychain_account AS a FROM vault_meta').get() as { a: string }).a;

  it('starts uninitialized and refuses secrets until the vault is set up', async () => {
    const core = await start(fresh());
    expect((await core.dispatcher.call('vault.status', {}, op)).state).toBe('uninitialized');
    expect((await core.dispatcher.call('secrets.list', {}, op)).secrets).toEqual([]);
    await expect(
      core.dispatcher.call('secrets.create', { name: 'gh', kind: 'github', value: TOKEN }, op),
    ).rejects.toMatchObject({ code: 'vault_uninitialized' });
  });

  it('initializes, stores its key in the keychain under an account scoped to the data dir, and shows it in app.info', async () => {
    const d = fresh();
    const core = await start(d);
    const seen: EventMessage[] = [];
    core.events.subscribe((e) => seen.push(e));
    const status = await core.dispatcher.call('vault.init', { recoveryPassphrase: PASS }, op);
    expect(status).toMatchObject({ state: 'unlocked', keyTerm: 1, hasRecoveryPassphrase: true });
    expect(status.principals.map((p) => p.kind).sort()).toEqual(['operator', 'recovery']);
    expect(account(core)).toContain(d.path);
    const stored = await new OsKeychain().get(KEYCHAIN_SERVICE, account(core));
    expect(Buffer.from(stored ?? '', 'base64')).toHaveLength(32);
    expect((await core.dispatcher.call('app.info', {}, op)).vault.state).toBe('unlocked');
    expect(seen.map((e) => e.name)).toEqual(expect.arrayContaining(['vault.changed', 'app.status']));
    await expect(core.dispatcher.call('vault.init', {}, op)).rejects.toMatchObject({ code: 'conflict' });
  });

  it('unlocks by itself at the next start through the keychain, and the secret still resolves', async () => {
    const d = fresh();
    const first = await start(d);
    await first.dispatcher.call('vault.init', {}, op);
    const created = await first.dispatcher.call(
      'secrets.create',
      { name: 'github', kind: 'github', host: 'github.com', value: TOKEN },
      op,
    );
    await first.dispose();
    const second = await start(d);
    expect(second.status.get().vault.state).toBe('unlocked');
    await expect(second.vault.resolveSecret(created.id)).resolves.toEqual({
      value: TOKEN,
      kind: 'github',
      host: 'github.com',
      name: 'github',
    });
  });

  it('keeps two data dirs apart: each vault has its own keychain entry', async () => {
    const a = fresh();
    const b = fresh();
    const coreA = await start(a);
    const coreB = await start(b);
    await coreA.dispatcher.call('vault.init', {}, op);
    await coreB.dispatcher.call('vault.init', {}, op);
    expect(account(coreA)).not.toBe(account(coreB));
    await coreA.dispose();
    await coreB.dispose();
    expect((await start(a)).status.get().vault.state).toBe('unlocked');
    expect((await start(b)).status.get().vault.state).toBe('unlocked');
  });

  it('locks, refuses to seal while locked, and unlocks only with the right recovery passphrase', async () => {
    const core = await start(fresh());
    await core.dispatcher.call('vault.init', { recoveryPassphrase: PASS }, op);
    const s = await core.dispatcher.call('secrets.create', { name: 'generic', kind: 'generic', value: TOKEN }, op);
    const locked = await core.dispatcher.call('vault.lock', {}, op);
    expect(locked.state).toBe('locked');
    expect(locked.reason).toMatch(/Locked by the operator/);
    expect(core.status.get().vault.state).toBe('locked');
    await expect(core.vault.resolveSecret(s.id)).rejects.toMatchObject({ code: 'vault_locked' });
    await expect(
      core.dispatcher.call('secrets.create', { name: 'x', kind: 'generic', value: 'abcdefgh' }, op),
    ).rejects.toMatchObject({ code: 'vault_locked' });
    expect((await core.dispatcher.call('secrets.list', {}, op)).secrets.map((x) => x.name)).toEqual(['generic']);
    await expect(core.dispatcher.call('vault.unlock', { passphrase: 'wrong passphrase' }, op)).rejects.toMatchObject({
      code: 'unauthorized',
      message: 'Wrong recovery passphrase.',
    });
    expect((await core.dispatcher.call('vault.unlock', { passphrase: PASS }, op)).state).toBe('unlocked');
    expect((await core.vault.resolveSecret(s.id)).value).toBe(TOKEN);
  });

  it('retries the keychain when unlock is called without a passphrase', async () => {
    const core = await start(fresh());
    await core.dispatcher.call('vault.init', {}, op);
    await core.dispatcher.call('vault.lock', {}, op);
    expect((await core.dispatcher.call('vault.unlock', {}, op)).state).toBe('unlocked');
  });

  it('unlocks with the recovery passphrase after the keychain entry is deleted, and puts a new key back', async () => {
    const d = fresh();
    const first = await start(d);
    await first.dispatcher.call('vault.init', { recoveryPassphrase: PASS }, op);
    const s = await first.dispatcher.call(
      'secrets.create',
      { name: 'gl', kind: 'gitlab', host: 'gitlab.com', value: TOKEN },
      op,
    );
    const acct = account(first);
    await first.dispose();
    await new OsKeychain().delete(KEYCHAIN_SERVICE, acct);

    const second = await start(d);
    const status = await second.dispatcher.call('vault.status', {}, op);
    expect(status.state).toBe('locked');
    expect(status.reason).toMatch(/keychain has no key for this vault/);
    expect(second.status.get().vault.reason).toBe(status.reason);
    await second.dispatcher.call('vault.unlock', { passphrase: PASS }, op);
    expect((await second.vault.resolveSecret(s.id)).value).toBe(TOKEN);
    expect(await new OsKeychain().get(KEYCHAIN_SERVICE, acct)).not.toBeNull();
    await second.dispose();

    const third = await start(d);
    expect(third.status.get().vault.state).toBe('unlocked');
  });

  it('changes the recovery passphrase by rewrapping only the recovery copy', async () => {
    const core = await start(fresh());
    await core.dispatcher.call('vault.init', { recoveryPassphrase: PASS }, op);
    const rows = () =>
      coreDb(core)
        .prepare('SELECT id, wrapped_dek AS w, sealed_private_key AS k FROM vault_principals ORDER BY id')
        .all() as { id: string; w: Buffer; k: Buffer }[];
    const before = rows();
    await expect(
      core.dispatcher.call('vault.changePassphrase', { newPassphrase: 'another long passphrase' }, op),
    ).rejects.toMatchObject({ code: 'bad_request' });
    await expect(
      core.dispatcher.call(
        'vault.changePassphrase',
        { currentPassphrase: 'nope nope nope', newPassphrase: 'another long passphrase' },
        op,
      ),
    ).rejects.toMatchObject({ code: 'unauthorized' });
    await core.dispatcher.call(
      'vault.changePassphrase',
      { currentPassphrase: PASS, newPassphrase: 'another long passphrase' },
      op,
    );
    const after = rows();
    expect(after.find((r) => r.id === 'operator')).toEqual(before.find((r) => r.id === 'operator'));
    expect(after.find((r) => r.id === 'recovery')!.k.equals(before.find((r) => r.id === 'recovery')!.k)).toBe(false);
    await core.dispatcher.call('vault.lock', {}, op);
    await expect(core.dispatcher.call('vault.unlock', { passphrase: PASS }, op)).rejects.toMatchObject({
      code: 'unauthorized',
    });
    expect((await core.dispatcher.call('vault.unlock', { passphrase: 'another long passphrase' }, op)).state).toBe(
      'unlocked',
    );
  });

  it('sets a first recovery passphrase on a vault created without one', async () => {
    const core = await start(fresh());
    expect((await core.dispatcher.call('vault.init', {}, op)).hasRecoveryPassphrase).toBe(false);
    await expect(
      core.dispatcher
        .call('vault.lock', {}, op)
        .then(() => core.dispatcher.call('vault.unlock', { passphrase: PASS }, op)),
    ).rejects.toMatchObject({ code: 'conflict' });
    await core.dispatcher.call('vault.unlock', {}, op);
    expect(
      (await core.dispatcher.call('vault.changePassphrase', { newPassphrase: PASS }, op)).hasRecoveryPassphrase,
    ).toBe(true);
  });

  it('refuses a too-short recovery passphrase with a message naming the field', async () => {
    const core = await start(fresh());
    await expect(core.dispatcher.call('vault.init', { recoveryPassphrase: 'short' }, op)).rejects.toMatchObject({
      code: 'bad_request',
      message: expect.stringMatching(/field "recoveryPassphrase" — use at least 8 characters/),
    });
  });
});
