import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { vaultCore } from '../../../test/helpers/core';
import type { Core } from '..';
import { operatorContext } from '../handlers';
import { vaultPrincipalId } from './tokens';

describe('a vault-class token is a machine principal of the vault', () => {
  let core: Core;
  let cleanup: () => Promise<void>;
  beforeAll(async () => {
    ({ core, cleanup } = await vaultCore());
  });
  afterAll(() => cleanup());

  const principals = () => core.vault.status().principals.map((p) => p.id);

  it('adds a machine principal when a vault token is created, and none for read or write tokens', async () => {
    const before = principals();
    const read = await core.tokens.create('r', 'read');
    const write = await core.tokens.create('w', 'write');
    expect(principals()).toEqual(before);
    const vault = await core.tokens.create('v', 'vault');
    expect(principals()).toContain(vaultPrincipalId(vault.token.id));
    expect(core.vault.status().principals.find((p) => p.id === vaultPrincipalId(vault.token.id))?.kind).toBe('machine');
    expect(principals()).not.toContain(vaultPrincipalId(read.token.id));
    expect(principals()).not.toContain(vaultPrincipalId(write.token.id));
  });

  const secretValue = 'provider-token-value-0123456789';
  const makeSecret = async () =>
    (
      await core.dispatcher.call(
        'secrets.create',
        { name: `s-${core.vault.secrets.list().length}`, kind: 'generic', value: secretValue },
        operatorContext('http'),
      )
    ).id;

  it("lets the vault token open the key for its own request only, the operator's vault staying locked", async () => {
    const id = await makeSecret();
    const { secret } = await core.tokens.create('away', 'vault');
    await core.dispatcher.call('vault.lock', {}, operatorContext('http'));
    const auth = await core.tokens.authenticate(secret);
    if (!auth.ok) throw new Error(auth.reason);
    expect(core.vault.status().state).toBe('locked');
    expect((await auth.vault.run(() => core.vault.resolveSecret(id))).value).toBe(secretValue);
    await expect(core.vault.resolveSecret(id)).rejects.toMatchObject({ code: 'vault_locked' });
    auth.vault.end();
    await expect(auth.vault.run(() => core.vault.resolveSecret(id))).rejects.toMatchObject({ code: 'vault_locked' });
    expect(core.vault.status().state).toBe('locked');
    await core.dispatcher.call('vault.unlock', {}, operatorContext('http'));
  });

  it('does not let a write token open a locked vault', async () => {
    const id = await makeSecret();
    const { secret } = await core.tokens.create('no-key', 'write');
    await core.dispatcher.call('vault.lock', {}, operatorContext('http'));
    const auth = await core.tokens.authenticate(secret);
    if (!auth.ok) throw new Error(auth.reason);
    await expect(auth.vault.run(() => core.vault.resolveSecret(id))).rejects.toMatchObject({ code: 'vault_locked' });
    expect(core.vault.status().state).toBe('locked');
    await core.dispatcher.call('vault.unlock', {}, operatorContext('http'));
  });

  it('removes the principal and rotates the data key when the vault token is revoked', async () => {
    const { token, secret } = await core.tokens.create('rotate', 'vault');
    const term = core.vault.status().keyTerm ?? 0;
    await core.dispatcher.call('tokens.revoke', { id: token.id }, operatorContext('http'));
    expect(principals()).not.toContain(vaultPrincipalId(token.id));
    expect(core.vault.status().keyTerm).toBe(term + 1);
    await core.dispatcher.call('vault.lock', {}, operatorContext('http'));
    expect((await core.tokens.authenticate(secret)).ok).toBe(false);
    expect(core.vault.status().state).toBe('locked');
    await core.dispatcher.call('vault.unlock', {}, operatorContext('http'));
  });

  it('refuses to make a vault token while the vault is locked, and keeps no half-made token', async () => {
    await core.dispatcher.call('vault.lock', {}, operatorContext('http'));
    const count = core.tokens.list().length;
    await expect(
      core.dispatcher.call('tokens.create', { name: 'late', class: 'vault' }, operatorContext('http')),
    ).rejects.toMatchObject({ code: 'vault_locked' });
    expect(core.tokens.list()).toHaveLength(count);
    await core.dispatcher.call('vault.unlock', {}, operatorContext('http'));
  });
});
