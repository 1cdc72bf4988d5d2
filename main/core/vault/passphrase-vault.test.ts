import { afterEach, describe, expect, it } from 'vitest';
import { vaultDataDir } from '../../../test/helpers/vault';
import type { Core } from '..';
import { operatorContext } from '../handlers';

const op = operatorContext('internal');
const PASS = 'the vault passphrase itself';
const RECOVERY = 'a separate recovery passphrase';
const NEXT = 'the next vault passphrase';
const CREDENTIAL = 'nxs_v_passphraseVaultMachineCredential_0123456789';

describe('a passphrase vault', () => {
  const dirs: ReturnType<typeof vaultDataDir>[] = [];
  const cores: Core[] = [];
  const start = async (d: ReturnType<typeof vaultDataDir>) => {
    const core = await d.open();
    cores.push(core);
    return core;
  };
  const restart = async (d: ReturnType<typeof vaultDataDir>, core: Core) => {
    await core.dispose();
    cores.splice(cores.indexOf(core), 1);
    return start(d);
  };
  afterEach(async () => {
    for (const c of cores.splice(0)) await c.dispose();
    for (const d of dirs.splice(0)) d.remove();
  });
  const fresh = () => {
    const d = vaultDataDir();
    dirs.push(d);
    return d;
  };

  it('is sealed at every start; its recovery passphrase opens it too; a machine credential opens nothing while sealed', async () => {
    const d = fresh();
    let core = await start(d);
    await core.dispatcher.call('vault.init', { passphrase: PASS, recoveryPassphrase: RECOVERY }, op);
    await core.vault.addMachinePrincipal('ci', CREDENTIAL);
    core = await restart(d, core);
    expect(core.vault.status()).toMatchObject({ state: 'locked', mode: 'passphrase', hasRecoveryPassphrase: true });
    expect(() => core.vault.machineScope('ci', CREDENTIAL)).toThrow(
      expect.objectContaining({ code: 'vault_locked', message: expect.stringMatching(/Sealed: unlock/) }),
    );
    await expect(core.dispatcher.call('vault.unlock', {}, op)).rejects.toMatchObject({
      code: 'bad_request',
      message: 'This vault is sealed: enter its passphrase.',
    });
    const before = core.vault.status();
    await expect(core.dispatcher.call('vault.unlock', { passphrase: 'no such passphrase' }, op)).rejects.toMatchObject({
      code: 'unauthorized',
      message: 'Wrong passphrase.',
    });
    expect(core.vault.status()).toEqual(before);
    await expect(core.dispatcher.call('vault.unlock', { passphrase: RECOVERY }, op)).resolves.toMatchObject({
      state: 'unlocked',
      reason: 'Unlocked with the recovery passphrase.',
    });
    // Unlocked by the operator, a machine credential works again.
    expect(() => core.vault.machineScope('ci', CREDENTIAL).end()).not.toThrow();
  });

  it('changes the vault passphrase only with the current one; afterwards only the new one opens it', async () => {
    const d = fresh();
    let core = await start(d);
    await core.dispatcher.call('vault.init', { passphrase: PASS }, op);
    await expect(core.dispatcher.call('vault.changePassphrase', { newPassphrase: NEXT }, op)).rejects.toMatchObject({
      code: 'bad_request',
      message: 'Enter the current passphrase to change it.',
    });
    await expect(
      core.dispatcher.call('vault.changePassphrase', { currentPassphrase: 'not it at all', newPassphrase: NEXT }, op),
    ).rejects.toMatchObject({ code: 'unauthorized', message: 'The current passphrase is wrong.' });
    await core.dispatcher.call('vault.changePassphrase', { currentPassphrase: PASS, newPassphrase: NEXT }, op);
    expect(core.vault.status()).toMatchObject({ mode: 'passphrase', hasRecoveryPassphrase: false });
    core = await restart(d, core);
    await expect(core.dispatcher.call('vault.unlock', { passphrase: PASS }, op)).rejects.toMatchObject({
      code: 'unauthorized',
    });
    await expect(core.dispatcher.call('vault.unlock', { passphrase: NEXT }, op)).resolves.toMatchObject({
      state: 'unlocked',
      mode: 'passphrase',
    });
  });

  it('locking it by hand says it is sealed and how to unlock', async () => {
    const core = await start(fresh());
    await core.dispatcher.call('vault.init', { passphrase: PASS }, op);
    const locked = await core.dispatcher.call('vault.lock', {}, op);
    expect(locked.reason).toBe(
      'Locked by the operator. Sealed: unlock with the passphrase in the UI or `nexus unlock`.',
    );
    expect(core.status.get().vault).toEqual({ state: 'locked', reason: locked.reason, mode: 'passphrase' });
  });
});
