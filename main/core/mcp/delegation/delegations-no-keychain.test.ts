import { execFile } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OpInput, OpName } from '../../../../shared/contract';
import { coreDb, repoRoot } from '../../../../test/helpers/core';
import { closeCore, noKeychainDataDir, plantWorkspace } from '../../../../test/helpers/no-keychain';
import type { NoBusKeychain } from '../../../../test/fakes/keychains';
import type { Core } from '../..';
import { operatorContext } from '../../handlers';

const PASS = 'vault passphrase for the no-keychain fleet test';
const op = operatorContext('http');

describe('delegation on a machine without an OS keychain (a passphrase vault)', () => {
  const dir = noKeychainDataDir();
  let core: Core;
  /** Every operation result, as the UI or an MCP client would receive it. */
  const results: string[] = [];
  const call = async <K extends OpName>(name: K, input: OpInput<K>) => {
    const out = await core.dispatcher.call(name, input, op);
    results.push(JSON.stringify(out));
    return out;
  };
  const tokenCount = async () => (await call('tokens.list', {})).tokens.length;
  let first = '';

  beforeAll(async () => {
    core = await dir.open();
    plantWorkspace(core, 'ws-a', 'alpha');
    plantWorkspace(core, 'ws-b', 'beta');
  });
  afterAll(async () => {
    await closeCore(core);
    dir.remove();
  });

  it('before the vault is set up, answers vault_locked saying to set it up, and mints no token', async () => {
    await expect(call('delegation.set', { workspace: 'alpha', access: 'write' })).rejects.toMatchObject({
      code: 'vault_locked',
      message: expect.stringMatching(/set up the vault in Settings → Vault/),
    });
    expect(await tokenCount()).toBe(0);
  });

  it('once the passphrase vault is set up, gives the workspace access with its secret sealed in the database', async () => {
    await call('vault.init', { passphrase: PASS });
    const { credential } = await call('delegation.set', { workspace: 'alpha', access: 'write' });
    expect(credential).toMatchObject({ workspaceId: 'ws-a', class: 'write', state: 'active' });
    first = (await core.delegation.credentials.secretOf('ws-a')) ?? '';
    expect(first).toMatch(/^nxs_w_/);
    const auth = await core.tokens.authenticate(first);
    expect(auth.ok && auth.caller.tokenId).toBe(credential?.tokenId);
    // The keychain was asked (and refused): the secret went to the vault instead.
    expect((dir.keychain as NoBusKeychain).calls).toBeGreaterThan(0);
    const rows = coreDb(core).prepare('SELECT * FROM core_secrets').all() as { sealed_value: Buffer }[];
    expect(rows).toHaveLength(1);
    expect(rows[0]!.sealed_value.includes(first)).toBe(false);
  });

  it('with the vault sealed, answers vault_locked saying how to unlock, and a session launches without the delegated server', async () => {
    await call('vault.lock', {});
    const before = await tokenCount();
    await expect(call('delegation.set', { workspace: 'beta', access: 'read' })).rejects.toMatchObject({
      code: 'vault_locked',
      message: expect.stringMatching(/unlock it in Settings → Vault or with `nexus unlock`/),
    });
    expect(await tokenCount()).toBe(before);
    await expect(core.delegation.credentials.secretOf('ws-a')).rejects.toMatchObject({ code: 'vault_locked' });
    core.delegation.listening('http://127.0.0.1:9');
    expect(await core.delegation.mcpEntry('ws-a', 'session-1')).toBeNull();
    await call('vault.unlock', { passphrase: PASS });
    expect((await core.delegation.mcpEntry('ws-a', 'session-1'))?.headers.Authorization).toBe(`Bearer ${first}`);
  });

  it('keeps the secret across a restart of Nexus: sealed until the passphrase unlocks the vault', async () => {
    await closeCore(core);
    core = await dir.open();
    expect(core.delegation.credentials.get('ws-a')).toMatchObject({ state: 'active' });
    await expect(core.delegation.credentials.secretOf('ws-a')).rejects.toMatchObject({ code: 'vault_locked' });
    await call('vault.unlock', { passphrase: PASS });
    expect(await core.delegation.credentials.secretOf('ws-a')).toBe(first);
  });

  it('still opens the secret after the vault key is rotated', async () => {
    const term = (await call('vault.status', {})).keyTerm ?? 0;
    await core.vault.rotate();
    expect((await call('vault.status', {})).keyTerm).toBe(term + 1);
    expect(await core.delegation.credentials.secretOf('ws-a')).toBe(first);
  });

  it('changing the class seals a new secret; removing access forgets it', async () => {
    await call('delegation.set', { workspace: 'alpha', access: 'read' });
    const second = await core.delegation.credentials.secretOf('ws-a');
    expect(second).toMatch(/^nxs_r_/);
    expect((await core.tokens.authenticate(first)).ok).toBe(false);
    await call('delegation.set', { workspace: 'alpha', access: 'none' });
    expect(coreDb(core).prepare('SELECT count(*) AS n FROM core_secrets').get()).toEqual({ n: 0 });
    expect(await core.delegation.credentials.secretOf('ws-a')).toBeNull();
    first = `${first}|${second ?? ''}`;
  });

  it('never shows a delegated secret in the database in clear, in a log line or in an operation result', async () => {
    const needles = first.split('|');
    expect(needles).toHaveLength(2);
    const haystacks = [
      ...results,
      ...['nexus.db', 'nexus.db-wal']
        .map((f) => join(dir.path, f))
        .filter(existsSync)
        .map((f) => readFileSync(f).toString('latin1')),
      ...readdirSync(join(dir.path, 'logs')).map((f) => readFileSync(join(dir.path, 'logs', f), 'utf8')),
    ];
    for (const needle of needles) for (const h of haystacks) expect(h.includes(needle)).toBe(false);
    // The scan read something: the logs say where the secret went instead of the keychain.
    expect(haystacks.join('\n')).toMatch(/OS keychain is not reachable/);
  });
});

describe('delegation with the real OS keychain and no session bus', () => {
  it('sets, reads and keeps access through the vault in a process that has no D-Bus', async () => {
    const dir = noKeychainDataDir();
    try {
      const core = await dir.open();
      plantWorkspace(core, 'ws-a', 'alpha');
      await core.dispatcher.call('vault.init', { passphrase: PASS }, op);
      await closeCore(core);
      const env = { ...process.env };
      delete env.DBUS_SESSION_BUS_ADDRESS;
      delete env.DISPLAY;
      const { stdout } = await promisify(execFile)(
        process.execPath,
        ['--import', 'tsx', 'test/children/core-secrets-no-bus.ts', dir.path, PASS],
        { cwd: repoRoot, env, timeout: 60_000 },
      );
      const out = JSON.parse(stdout.trim().split('\n').at(-1)!) as Record<string, unknown>;
      expect(out).toEqual({
        keychainAnswers: false,
        set: { class: 'write', state: 'active' },
        secret: 'nxs_w_',
        sealedRows: 1,
        connect: { newToken: true, filed: 'nxs_r_' },
      });
    } finally {
      dir.remove();
    }
  });
});
