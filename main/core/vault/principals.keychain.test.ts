import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { vaultDataDir } from '../../../test/helpers/vault';
import type { Core } from '..';
import { operatorContext } from '../handlers';
import { coreDb } from '../../../test/helpers/core';

const op = operatorContext('internal');
const CREDENTIAL = 'nxs_v_machineCredential_0123456789abcdefghijklmnop';
const refusal = (fn: () => unknown): unknown => {
  try {
    fn();
  } catch (e) {
    return e;
  }
  return null;
};

describe('vault principals and key rotation', () => {
  let dir: ReturnType<typeof vaultDataDir>;
  let core: Core;
  const ids: string[] = [];
  beforeEach(async () => {
    dir = vaultDataDir();
    core = await dir.open();
    await core.dispatcher.call('vault.init', {}, op);
    ids.length = 0;
    for (let i = 0; i < 5; i++) {
      ids.push(
        (
          await core.dispatcher.call(
            'secrets.create',
            { name: `s${i}`, kind: 'generic', value: `value-number-${i}-abcdefgh` },
            op,
          )
        ).id,
      );
    }
  });
  afterEach(async () => {
    await core.dispose();
    dir.remove();
  });

  const sealedValues = () =>
    coreDb(core).prepare('SELECT id, sealed_value AS v, dek_term AS t FROM secrets ORDER BY id').all() as {
      id: string;
      v: Buffer;
      t: number;
    }[];

  it('adds a machine principal as one more wrapped copy that opens the key for one call, the vault staying locked', async () => {
    const status = await core.vault.addMachinePrincipal('token-1', CREDENTIAL);
    expect(status.principals.map((p) => `${p.kind}:${p.id}`)).toContain('machine:token-1');
    await core.vault.lock();
    expect(refusal(() => core.vault.machineScope('token-1', `${CREDENTIAL}x`))).toMatchObject({ code: 'unauthorized' });
    const scope = core.vault.machineScope('token-1', CREDENTIAL);
    expect((await scope.run(() => core.vault.resolveSecret(ids[0]!))).value).toBe('value-number-0-abcdefgh');
    expect(core.vault.status().state).toBe('locked');
    await expect(core.vault.resolveSecret(ids[0]!)).rejects.toMatchObject({ code: 'vault_locked' });
    scope.end();
    await expect(scope.run(() => core.vault.resolveSecret(ids[0]!))).rejects.toMatchObject({ code: 'vault_locked' });
  });

  it('refuses machine principals while locked, with reserved ids or weak credentials', async () => {
    await expect(core.vault.addMachinePrincipal('operator', CREDENTIAL)).rejects.toMatchObject({ code: 'bad_request' });
    await expect(core.vault.addMachinePrincipal('token-2', 'short')).rejects.toMatchObject({ code: 'bad_request' });
    await core.vault.lock();
    await expect(core.vault.addMachinePrincipal('token-2', CREDENTIAL)).rejects.toMatchObject({ code: 'vault_locked' });
  });

  it('rotates the data key when a principal is removed and reseals every secret in the same step', async () => {
    await core.vault.addMachinePrincipal('token-1', CREDENTIAL);
    const before = sealedValues();
    const status = await core.vault.removePrincipal('token-1');
    expect(status.keyTerm).toBe(2);
    expect(status.principals.map((p) => p.id)).toEqual(['operator']);
    const after = sealedValues();
    for (const [i, row] of after.entries()) {
      expect(row.t).toBe(2);
      expect(row.v.equals(before[i]!.v)).toBe(false);
    }
    for (const [i, id] of ids.entries())
      expect((await core.vault.resolveSecret(id)).value).toBe(`value-number-${i}-abcdefgh`);
    await core.vault.lock();
    expect(refusal(() => core.vault.machineScope('token-1', CREDENTIAL))).toMatchObject({ code: 'not_found' });
    // The operator copy was rewrapped for the new key: a restart still auto-unlocks.
    await core.dispose();
    core = await dir.open();
    expect(core.status.get().vault.state).toBe('unlocked');
    expect((await core.vault.resolveSecret(ids[4]!)).value).toBe('value-number-4-abcdefgh');
  });

  it('keeps a removed principal out even if its old row is put back (the new key is not wrapped for it)', async () => {
    await core.vault.addMachinePrincipal('token-1', CREDENTIAL);
    const oldRow = coreDb(core).prepare("SELECT * FROM vault_principals WHERE id = 'token-1'").get() as Record<
      string,
      unknown
    >;
    await core.vault.removePrincipal('token-1');
    const cols = Object.keys(oldRow);
    coreDb(core)
      .prepare(`INSERT INTO vault_principals (${cols.join(',')}) VALUES (${cols.map((c) => `@${c}`).join(',')})`)
      .run(oldRow);
    await core.vault.lock();
    expect(refusal(() => core.vault.machineScope('token-1', CREDENTIAL))).toMatchObject({
      message: expect.stringMatching(/out of date/),
    });
  });

  it('refuses to remove the operator principal or an unknown one', async () => {
    await expect(core.vault.removePrincipal('operator')).rejects.toMatchObject({ code: 'bad_request' });
    await expect(core.vault.removePrincipal('nobody')).rejects.toMatchObject({ code: 'not_found' });
  });

  it('fails with a typed error when a sealed value is moved to another row, and when it is tampered with', async () => {
    const rows = sealedValues();
    coreDb(core).prepare('UPDATE secrets SET sealed_value = ? WHERE id = ?').run(rows[0]!.v, rows[1]!.id);
    await expect(core.vault.resolveSecret(rows[1]!.id)).rejects.toMatchObject({ name: 'VaultError', kind: 'tampered' });
    const flipped = Buffer.from(rows[2]!.v);
    flipped[flipped.length - 3]! ^= 0x80;
    coreDb(core).prepare('UPDATE secrets SET sealed_value = ? WHERE id = ?').run(flipped, rows[2]!.id);
    await expect(core.vault.resolveSecret(rows[2]!.id)).rejects.toMatchObject({ kind: 'tampered' });
    expect((await core.vault.resolveSecret(rows[0]!.id)).value).toMatch(/^value-number-/);
    // Rotation refuses to drop a damaged secret silently, and changes nothing.
    await core.vault.addMachinePrincipal('token-1', CREDENTIAL);
    await expect(core.vault.removePrincipal('token-1')).rejects.toMatchObject({
      code: 'conflict',
      message: expect.stringMatching(/cannot be opened .* Delete or replace it/),
    });
    expect(core.vault.status()).toMatchObject({
      keyTerm: 1,
      principals: expect.arrayContaining([expect.objectContaining({ id: 'token-1' })]),
    });
    expect((await core.vault.resolveSecret(rows[0]!.id)).value).toMatch(/^value-number-/);
  });

  it('refuses to derive the recovery key from stored parameters below the minimum strength', async () => {
    await core.dispatcher.call('vault.changePassphrase', { newPassphrase: 'a fine long passphrase' }, op);
    const row = coreDb(core).prepare("SELECT kek_params AS p FROM vault_principals WHERE id = 'recovery'").get() as {
      p: string;
    };
    const weak = { ...(JSON.parse(row.p) as object), n: 1024 };
    coreDb(core).prepare("UPDATE vault_principals SET kek_params = ? WHERE id = 'recovery'").run(JSON.stringify(weak));
    await core.vault.lock();
    await expect(core.vault.unlock('a fine long passphrase')).rejects.toThrow(/below the minimum strength/);
  });
});
