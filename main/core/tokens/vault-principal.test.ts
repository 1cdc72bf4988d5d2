import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testCore } from '../../../test/helpers/core';
import type { Core } from '..';
import { operatorContext } from '../handlers';
import { vaultPrincipalId } from './tokens';

describe('a vault-class token is a machine principal of the vault', () => {
  let core: Core;
  let cleanup: () => Promise<void>;
  beforeAll(async () => {
    ({ core, cleanup } = await testCore());
    await core.dispatcher.call('vault.init', {}, operatorContext('http'));
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

  it('lets the vault token open a locked vault while the operator is away', async () => {
    const { secret } = await core.tokens.create('away', 'vault');
    await core.dispatcher.call('vault.lock', {}, operatorContext('http'));
    expect(core.vault.status().state).toBe('locked');
    const auth = await core.tokens.authenticate(secret);
    expect(auth.ok).toBe(true);
    expect(core.vault.status().state).toBe('unlocked');
  });

  it('does not let a write token open a locked vault', async () => {
    const { secret } = await core.tokens.create('no-key', 'write');
    await core.dispatcher.call('vault.lock', {}, operatorContext('http'));
    expect((await core.tokens.authenticate(secret)).ok).toBe(true);
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
