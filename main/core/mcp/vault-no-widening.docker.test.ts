import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureTestWorkerImage, workspaceTestConfig } from '../../../test/helpers/docker';
import { dockerProxy } from '../../../test/helpers/docker-proxy';
import { serveGitRepo } from '../../../test/helpers/git-http-server';
import { connectClient, mintToken, startNexus } from '../../../test/helpers/mcp';
import { waitFor } from '../../../test/helpers/wait';

type Nexus = Awaited<ReturnType<typeof startNexus>>;

// Issue 17, item 1: a vault-class token opens the data key for its own call only. The operator's
// vault stays locked before, during and after the call, over the real /api/mcp with a real token.
describe('a vault-class MCP call does not widen the vault', () => {
  const token = `ghp_${randomBytes(20).toString('hex')}`;
  const name = `nowiden-${randomBytes(3).toString('hex')}`;
  let proxy: Awaited<ReturnType<typeof dockerProxy>>;
  let repo: Awaited<ReturnType<typeof serveGitRepo>>;
  let nexus: Nexus;
  let client: Client;
  let image: string;
  let secretId: string;

  /** An operation as the operator's UI or CLI sends it: /api/rpc with the start token. */
  const rpc = async (op: string, input: unknown = {}): Promise<{ result?: unknown; error?: { code: string } }> => {
    const res = await fetch(`${nexus.running.host.url}/api/rpc/${op}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${nexus.running.host.token}`, 'content-type': 'application/json' },
      body: JSON.stringify(input),
    });
    return (await res.json()) as { result?: unknown; error?: { code: string } };
  };
  const vaultStatus = async () => (await rpc('vault.status')).result as { state: string };

  beforeAll(async () => {
    image = await ensureTestWorkerImage();
    proxy = await dockerProxy();
    repo = await serveGitRepo(token);
    nexus = await startNexus(workspaceTestConfig({ socketPath: proxy.socketPath }));
    const created = await rpc('secrets.create', { name: 'provider', kind: 'github', host: '', value: token });
    secretId = (created.result as { id: string }).id;
    client = await connectClient(nexus.mcpUrl, (await mintToken(nexus.running, 'vault')).secret);
    await rpc('vault.lock');
  }, 600_000);
  afterAll(async () => {
    await client?.close();
    proxy?.release();
    if (nexus) await rpc('workspaces.delete', { workspace: name }).catch(() => undefined);
    await nexus?.stop();
    await proxy?.close();
    await repo?.close();
  });

  it('leaves the vault locked after tools/list', async () => {
    const before = await vaultStatus();
    expect(before.state).toBe('locked');
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toContain('create_workspace');
    expect(await vaultStatus()).toEqual(before);
  });

  it('clones with the vault secret while the operator, during and after the call, sees the vault locked', async () => {
    const before = await vaultStatus();
    // Catch the call inside its Docker image check, after it has opened the secret.
    proxy.hold();
    const call = client.callTool({
      name: 'create_workspace',
      arguments: { name, repo_url: repo.url, secret_id: secretId, image },
    });
    await waitFor(() => proxy.held() > 0, 'the create to reach the Docker engine');
    // A concurrent operator call: the vault is locked and its secrets stay sealed.
    expect(await vaultStatus()).toEqual(before);
    expect((await rpc('secrets.update', { id: secretId, value: `${token}x` })).error).toMatchObject({
      code: 'vault_locked',
    });
    await expect(nexus.running.core.vault.resolveSecret(secretId)).rejects.toMatchObject({ code: 'vault_locked' });
    proxy.release();

    const result = await call;
    expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
    expect(result.structuredContent).toMatchObject({ name, status: 'creating' });
    expect(await vaultStatus()).toEqual(before);
    // The clone ran after the call had ended: it used the token the call resolved, nothing more.
    const ws = await waitFor(
      async () => {
        const w = (await rpc('workspaces.get', { workspace: name })).result as { status: string; reason: string };
        return w.status !== 'creating' ? w : null;
      },
      'the workspace to leave creating',
      300_000,
    );
    expect(ws, JSON.stringify(ws)).toMatchObject({ status: 'running' });
    expect(repo.authorizedRequests()).toBeGreaterThan(0);
    expect(await vaultStatus()).toEqual(before);
    await expect(nexus.running.core.vault.resolveSecret(secretId)).rejects.toMatchObject({ code: 'vault_locked' });
  }, 400_000);

  it('restarts the workspace with its secret re-injected, the vault still locked', async () => {
    const before = await vaultStatus();
    const stopped = await client.callTool({ name: 'stop_workspace', arguments: { workspace: name } });
    expect(stopped.structuredContent).toMatchObject({ status: 'stopped' });
    const started = await client.callTool({ name: 'start_workspace', arguments: { workspace: name } });
    expect(started.isError, JSON.stringify(started.content)).toBeFalsy();
    expect(started.structuredContent).toMatchObject({ status: 'running' });
    expect(await vaultStatus()).toEqual(before);
  }, 120_000);
});
