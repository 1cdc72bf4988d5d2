import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFile } from 'node:child_process';
import { connectClient } from '../../../test/helpers/mcp';
import { repoRoot } from '../../../test/helpers/core';
import { startNexusProcess } from '../../../test/helpers/nexus-process';
import { tempDir } from '../../../test/helpers/temp-dir';

const PASS = 'sealed vault passphrase for the no-bus test';
const TOKEN = 'ghp_sealedVaultTestValue0123456789abcd';
const NO_BUS = { DBUS_SESSION_BUS_ADDRESS: 'unix:path=/nonexistent/nexus-no-bus' };
const SEALED = /Sealed: unlock with the passphrase in the UI or `nexus unlock`/;

interface Status {
  state: string;
  reason: string;
  mode: string | null;
  keychainReachable: boolean | null;
}

/** `nexus serve` from source in its own process, with no D-Bus session bus: no Secret Service at all. */
const serveWithoutKeychain = (dataDir: string) => startNexusProcess(dataDir, NO_BUS, { fromSource: true });

/** `nexus unlock` with the passphrase piped on stdin, as a script or a service's ExecStartPost would. */
function nexusUnlock(dataDir: string, stdin: string): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = execFile(
      process.execPath,
      ['--import', 'tsx', 'main/cli.ts', 'unlock', '--data-dir', dataDir],
      { cwd: repoRoot, env: { ...process.env, ...NO_BUS }, timeout: 60_000 },
      (error, stdout, stderr) => resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
    );
    child.stdin?.end(stdin);
  });
}

describe('a passphrase vault on a machine without a keychain', () => {
  const dir = tempDir('nexus-sealed-');
  let nexus: Awaited<ReturnType<typeof serveWithoutKeychain>>;
  let secretId = '';
  let vaultToken = '';
  const create = (name: string) =>
    // An image that does not exist: a create that gets past the vault stops there, before any container.
    nexus.answer('workspaces.create', {
      name,
      repoUrl: 'https://github.com/example/sealed.git',
      secretId,
      image: 'nexus-test-no-such-image:none',
    });
  const mcpCreate = async (name: string) => {
    const client = await connectClient(`${nexus.url}/api/mcp`, vaultToken);
    try {
      return await client.callTool({
        name: 'create_workspace',
        arguments: {
          name,
          repo_url: 'https://github.com/example/sealed.git',
          secret_id: secretId,
          image: 'nexus-test-no-such-image:none',
        },
      });
    } finally {
      await client.close();
    }
  };

  beforeAll(async () => {
    nexus = await serveWithoutKeychain(dir.path);
  }, 90_000);
  afterAll(async () => {
    await nexus.kill('SIGTERM');
    dir.remove();
  });

  it('offers a passphrase at set-up because the keychain is unreachable, and refuses the keychain set-up with that advice', async () => {
    let status: Status | undefined;
    for (let i = 0; i < 100 && status?.keychainReachable !== false; i++) {
      status = (await nexus.answer<Status>('vault.status')).result;
      if (status?.keychainReachable !== false) await new Promise((r) => setTimeout(r, 100));
    }
    expect(status).toMatchObject({ state: 'uninitialized', mode: null, keychainReachable: false });
    expect(status!.reason).toMatch(/OS keychain .*not reachable.*set up the vault with a passphrase/i);
    const refused = await nexus.answer('vault.init', {});
    expect(refused.error).toMatchObject({
      code: 'unavailable',
      message: expect.stringMatching(/nothing was stored.*Set up the vault with a passphrase instead/),
    });
  });

  it('sets up with a passphrase and says which mode it is in', async () => {
    const init = await nexus.answer<Status>('vault.init', { passphrase: PASS });
    expect(init.result).toMatchObject({ state: 'unlocked', mode: 'passphrase' });
    const info = await nexus.answer<{ vault: Status }>('app.info');
    expect(info.result?.vault).toMatchObject({ state: 'unlocked', mode: 'passphrase' });
    secretId = (await nexus.answer<{ id: string }>('secrets.create', { name: 'gh', kind: 'github', value: TOKEN }))
      .result!.id;
    vaultToken = (await nexus.answer<{ secret: string }>('tokens.create', { name: 'ci', class: 'vault' })).result!
      .secret;
    expect(secretId).not.toBe('');
    expect(vaultToken).toMatch(/^nxs_v_/);
  });

  it('is sealed after a restart: workspaces.create and MCP create_workspace are refused with vault_locked and what to do', async () => {
    await nexus.kill('SIGTERM');
    nexus = await serveWithoutKeychain(dir.path);
    const status = (await nexus.answer<Status>('vault.status')).result!;
    expect(status).toMatchObject({ state: 'locked', mode: 'passphrase' });
    expect(status.reason).toMatch(SEALED);

    const refused = await create('sealed-one');
    expect(refused.error?.code).toBe('vault_locked');
    expect(refused.error?.message).toMatch(SEALED);

    const viaMcp = await mcpCreate('sealed-two');
    expect(viaMcp.isError).toBe(true);
    expect(JSON.stringify(viaMcp.content)).toMatch(/\[vault_locked\].*Sealed: unlock with the passphrase/);

    const client = await connectClient(`${nexus.url}/api/mcp`, vaultToken);
    const info = await client.callTool({ name: 'get_nexus_info', arguments: {} });
    await client.close();
    expect(info.structuredContent).toMatchObject({ vault: { state: 'locked', mode: 'passphrase' } });
  });

  it('refuses a wrong passphrase from `nexus unlock` and changes nothing', async () => {
    const before = (await nexus.answer<Status>('vault.status')).result;
    const run = await nexusUnlock(dir.path, 'not the passphrase\n');
    expect(run.code).not.toBe(0);
    expect(run.stderr).toMatch(/Wrong passphrase\. \(unauthorized\)/);
    expect(run.stderr).not.toContain('not the passphrase');
    expect((await nexus.answer<Status>('vault.status')).result).toEqual(before);
    expect((await create('sealed-three')).error?.code).toBe('vault_locked');
  });

  it('unseals with the right passphrase piped to `nexus unlock`: creating a workspace gets past the vault', async () => {
    const run = await nexusUnlock(dir.path, `${PASS}\n`);
    expect(run.stderr).not.toContain(PASS);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/Vault unlocked/);
    expect((await nexus.answer<Status>('vault.status')).result).toMatchObject({
      state: 'unlocked',
      mode: 'passphrase',
    });

    const direct = await create('unsealed-one');
    expect(direct.error?.code).not.toBe('vault_locked');
    expect(direct.error?.message).toMatch(/nexus-test-no-such-image:none/);
    const viaMcp = await mcpCreate('unsealed-two');
    expect(JSON.stringify(viaMcp.content)).not.toContain('vault_locked');
    expect(JSON.stringify(viaMcp.content)).toMatch(/nexus-test-no-such-image:none/);
  });
});
