import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { coreDb } from '../../../test/helpers/core';
import { SwitchableKeychain } from '../../../test/fakes/keychains';
import { closeCore, noKeychainDataDir } from '../../../test/helpers/no-keychain';
import type { Core } from '..';
import { operatorContext } from '../handlers';
import type { CoreSecret } from './core-secret';
import { CoreSecrets } from './core-secrets';
import { SealedCoreSecrets } from './sealed-core-secrets';

const secret = (account: string): CoreSecret => ({ service: 'Nexus Desktop test', account, fallback: 'vault' });
const VALUE = 'nxs_w_coreSecretsTestValue000000000000000000000';

describe('core secrets: the OS keychain where it answers, else sealed in the vault', () => {
  const keychain = new SwitchableKeychain();
  const dir = noKeychainDataDir(keychain);
  let core: Core;
  const sealedRows = () => (coreDb(core).prepare('SELECT count(*) AS n FROM core_secrets').get() as { n: number }).n;
  const build = (opts: { timeoutMs?: number; retryMs?: number } = {}) =>
    new CoreSecrets({
      keychain,
      sealed: new SealedCoreSecrets(coreDb(core), core.vault),
      redactor: core.redactor,
      log: core.log,
      dataDir: dir.path,
      ...opts,
    });

  beforeAll(async () => {
    core = await dir.open();
    await core.dispatcher.call('vault.init', { passphrase: 'core secrets test passphrase' }, operatorContext('http'));
  });
  afterAll(async () => {
    await closeCore(core);
    dir.remove();
  });

  it('keeps a secret in the keychain while it answers, with nothing in the database', async () => {
    const secrets = build();
    await secrets.set(secret('a'), VALUE);
    expect(keychain.entries.get('Nexus Desktop test/a')).toBe(VALUE);
    expect(sealedRows()).toBe(0);
    expect(await secrets.get(secret('a'))).toBe(VALUE);
    expect(core.redactor.text(`token ${VALUE}`)).not.toContain(VALUE);
  });

  it('falls back to the vault when the keychain stops answering mid-life, and finds older keychain entries once it answers again', async () => {
    const secrets = build({ retryMs: 0 });
    keychain.state = 'down';
    await secrets.set(secret('b'), `${VALUE}b`);
    expect(sealedRows()).toBe(1);
    expect(await secrets.get(secret('b'))).toBe(`${VALUE}b`);
    // The entry kept before the keychain went away is out of reach, and said so by null, not an error.
    expect(await secrets.get(secret('a'))).toBeNull();
    keychain.state = 'up';
    expect(await secrets.get(secret('a'))).toBe(VALUE);
    expect(await secrets.get(secret('b'))).toBe(`${VALUE}b`);
  });

  it('reads the vault copy before an older keychain entry, and a keychain write retires the vault copy', async () => {
    const secrets = build({ retryMs: 0 });
    keychain.entries.set('Nexus Desktop test/b', 'nxs_w_stale');
    expect(await secrets.get(secret('b'))).toBe(`${VALUE}b`);
    await secrets.set(secret('b'), `${VALUE}c`);
    expect(keychain.entries.get('Nexus Desktop test/b')).toBe(`${VALUE}c`);
    expect(sealedRows()).toBe(0);
    expect(await secrets.get(secret('b'))).toBe(`${VALUE}c`);
    await secrets.delete(secret('b'));
    expect(await secrets.get(secret('b'))).toBeNull();
  });

  it('moves a secret kept under its former name to the new one on first read, in the keychain and in the vault', async () => {
    const secrets = build({ retryMs: 0 });
    const renamed = (account: string): CoreSecret => ({
      ...secret(`new-${account}`),
      formerly: { service: 'Nexus Desktop former', account },
    });
    keychain.entries.set('Nexus Desktop former/k', `${VALUE}k`);
    expect(await secrets.get(renamed('k'))).toBe(`${VALUE}k`);
    expect(keychain.entries.get('Nexus Desktop test/new-k')).toBe(`${VALUE}k`);
    expect(keychain.entries.has('Nexus Desktop former/k')).toBe(false);
    expect(await secrets.get(renamed('k'))).toBe(`${VALUE}k`);
    // Without a keychain the former copy is sealed in the vault: it moves there too, one row before and after.
    keychain.state = 'down';
    await secrets.set({ service: 'Nexus Desktop former', account: 'v', fallback: 'vault' }, `${VALUE}v`);
    expect(sealedRows()).toBe(1);
    expect(await secrets.get(renamed('v'))).toBe(`${VALUE}v`);
    expect(sealedRows()).toBe(1);
    expect(await secrets.get({ service: 'Nexus Desktop former', account: 'v', fallback: 'vault' })).toBeNull();
    // Deleting under the new name forgets the former one as well.
    await secrets.set({ service: 'Nexus Desktop former', account: 'd', fallback: 'vault' }, `${VALUE}d`);
    await secrets.delete(renamed('d'));
    expect(await secrets.get(renamed('d'))).toBeNull();
    expect(sealedRows()).toBe(1);
    await secrets.delete(renamed('v'));
    expect(sealedRows()).toBe(0);
    keychain.state = 'up';
  });

  it('gives up on a keychain that never answers within its bound, and remembers that', async () => {
    const secrets = build({ timeoutMs: 200 });
    keychain.state = 'hang';
    try {
      let started = Date.now();
      await secrets.set(secret('c'), `${VALUE}d`);
      expect(Date.now() - started).toBeLessThan(2_000);
      expect(sealedRows()).toBe(1);
      started = Date.now();
      expect(await secrets.get(secret('c'))).toBe(`${VALUE}d`);
      expect(await secrets.get(secret('d'))).toBeNull();
      expect(Date.now() - started).toBeLessThan(150);
      expect(await secrets.keychainAnswers()).toBe(false);
    } finally {
      keychain.state = 'up';
    }
  });

  it('answers vault_locked, not internal, where it needs the sealed vault', async () => {
    const secrets = build();
    keychain.state = 'down';
    try {
      await core.dispatcher.call('vault.lock', {}, operatorContext('http'));
      await expect(secrets.ready(secret('e'))).rejects.toMatchObject({ code: 'vault_locked' });
      await expect(secrets.set(secret('e'), `${VALUE}e`)).rejects.toMatchObject({ code: 'vault_locked' });
      await expect(secrets.get(secret('c'))).rejects.toMatchObject({
        code: 'vault_locked',
        message: expect.stringMatching(/nexus unlock/),
      });
    } finally {
      keychain.state = 'up';
    }
  });
});
