import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { vaultCore, coreDb } from '../../../../test/helpers/core';
import type { Core } from '../..';
import { operatorContext } from '../../handlers';
import { DELEGATION_KEYCHAIN_SERVICE, delegationKeychainAccount } from './delegations';

describe("a workspace's delegated credential", () => {
  let core: Core;
  let cleanup: () => Promise<void>;
  beforeAll(async () => {
    ({ core, cleanup } = await vaultCore());
  });
  afterAll(() => cleanup());

  const tokens = async () => (await core.dispatcher.call('tokens.list', {}, operatorContext('http'))).tokens;

  it('is an ordinary MCP token named after the workspace, listed in Settings → Access, its secret in the keychain', async () => {
    const c = await core.delegation.credentials.set({ id: 'ws-a', name: 'alpha' }, 'write');
    expect(c).toMatchObject({ workspaceId: 'ws-a', class: 'write', allWorkspaces: false, state: 'active' });
    const listed = (await tokens()).find((t) => t.id === c?.tokenId);
    expect(listed).toMatchObject({ name: 'workspace alpha (delegated)', class: 'write', state: 'active' });
    const secret = await core.delegation.credentials.secretOf('ws-a');
    expect(secret?.startsWith('nxs_w_')).toBe(true);
    // Reading core's own copy for a launch is not a use of the token.
    expect((await tokens()).find((t) => t.id === c?.tokenId)?.lastUsedAt).toBeNull();
    const auth = await core.tokens.authenticate(secret ?? '');
    expect(auth.ok && auth.caller.tokenId).toBe(c?.tokenId);
    expect(core.delegation.credentials.scopeOf(c?.tokenId ?? '')).toEqual({
      workspaceId: 'ws-a',
      allWorkspaces: false,
    });
    // The database holds the hash only: the secret is nowhere in the credentials row or the token row.
    const rows = JSON.stringify(coreDb(core).prepare('SELECT * FROM delegations').all());
    expect(rows).not.toContain(secret);
    // The keychain answered, so nothing was sealed in the vault's fallback table either.
    expect(coreDb(core).prepare('SELECT count(*) AS n FROM core_secrets').get()).toEqual({ n: 0 });
  });

  it('widening keeps the token; another class replaces it and revokes the old one', async () => {
    const before = core.delegation.credentials.get('ws-a');
    const widened = await core.delegation.credentials.set({ id: 'ws-a', name: 'alpha' }, 'write', true);
    expect(widened).toMatchObject({ tokenId: before?.tokenId, allWorkspaces: true });
    const read = await core.delegation.credentials.set({ id: 'ws-a', name: 'alpha' }, 'read');
    expect(read).toMatchObject({ class: 'read', allWorkspaces: false });
    expect(read?.tokenId).not.toBe(before?.tokenId);
    expect((await tokens()).find((t) => t.id === before?.tokenId)?.state).toBe('revoked');
    expect((await core.delegation.credentials.secretOf('ws-a'))?.startsWith('nxs_r_')).toBe(true);
  });

  it('a revoked token gives its sessions no secret, and removing the credential revokes it and forgets the secret', async () => {
    const c = await core.delegation.credentials.set({ id: 'ws-b', name: 'beta' }, 'write');
    const secret = await core.delegation.credentials.secretOf('ws-b');
    await core.dispatcher.call('tokens.revoke', { id: c?.tokenId ?? '' }, operatorContext('http'));
    expect(await core.delegation.credentials.secretOf('ws-b')).toBeNull();
    expect((await core.tokens.authenticate(secret ?? '')).ok).toBe(false);

    const d = await core.delegation.credentials.set({ id: 'ws-c', name: 'gamma' }, 'read');
    const entry = () =>
      core.ports.keychain.get(DELEGATION_KEYCHAIN_SERVICE, delegationKeychainAccount(core.ports.paths.dataDir, 'ws-c'));
    expect(await entry()).toMatch(/^nxs_r_/);
    await core.delegation.removed('ws-c');
    expect(core.delegation.credentials.get('ws-c')).toBeNull();
    expect((await tokens()).find((t) => t.id === d?.tokenId)?.state).toBe('revoked');
    expect(await entry()).toBeNull();
    expect(await core.delegation.credentials.secretOf('ws-c')).toBeNull();
  });

  it('at start-up, credentials of workspaces that are gone are revoked', async () => {
    const c = await core.delegation.credentials.set({ id: 'ws-gone', name: 'gone' }, 'read');
    await core.delegation.credentials.sweep((id) => id !== 'ws-gone');
    expect(core.delegation.credentials.get('ws-gone')).toBeNull();
    expect((await tokens()).find((t) => t.id === c?.tokenId)?.state).toBe('revoked');
  });

  it('delegation.list shows each credential without a secret', async () => {
    const { credentials } = await core.dispatcher.call('delegation.list', {}, operatorContext('http'));
    expect(credentials.map((c) => c.workspaceId).sort()).toEqual(['ws-a', 'ws-b']);
    expect(JSON.stringify(credentials)).not.toMatch(/nxs_[rwv]_/);
  });
});
