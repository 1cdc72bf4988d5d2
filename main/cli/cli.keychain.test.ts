import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repoRoot } from '../../test/helpers/core';
import { rawRequest, startNexus, toolCall } from '../../test/helpers/mcp';
import { READ_CLASS_TOOLS } from '../../test/helpers/read-tools';
import { tempDir } from '../../test/helpers/temp-dir';
import { operatorContext } from '../core/handlers';
import { parseExpiry } from './token-command';

const exec = promisify(execFile);
const nexusCli = (args: string[], env: NodeJS.ProcessEnv = {}) =>
  exec(process.execPath, ['--import', 'tsx', 'main/cli.ts', ...args], {
    cwd: repoRoot,
    env: { ...process.env, ...env },
    timeout: 60_000,
  });

const stdioClient = async (dataDir: string, env: Record<string, string> = {}): Promise<Client> => {
  const client = new Client({ name: 'claude-desktop-stand-in', version: '1.0.0' });
  const inherited = Object.fromEntries(
    Object.entries(process.env).filter(
      (e): e is [string, string] => typeof e[1] === 'string' && e[0] !== 'NEXUS_TOKEN',
    ),
  );
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: ['--import', 'tsx', 'main/cli.ts', 'mcp-stdio', '--data-dir', dataDir],
      cwd: repoRoot,
      env: { ...inherited, ...env },
      stderr: 'pipe',
    }),
  );
  return client;
};

describe('nexus token and nexus mcp-stdio', () => {
  let nexus: Awaited<ReturnType<typeof startNexus>>;
  const claudeConfig = tempDir('nexus-claude-config-');
  beforeAll(async () => {
    nexus = await startNexus({ mcp: { claudeDesktopConfig: `${claudeConfig.path}/claude_desktop_config.json` } });
  });
  afterAll(async () => {
    await nexus.stop();
    claudeConfig.remove();
  });

  it('creates a token through the running app, prints the secret alone on stdout, lists it and revokes it', async () => {
    const created = await nexusCli([
      'token',
      'create',
      '--class',
      'write',
      '--name',
      'ci bot',
      '--expires',
      '7d',
      '--data-dir',
      nexus.dataDir,
    ]);
    const secret = created.stdout.trim();
    expect(secret).toMatch(/^nxs_w_[A-Za-z0-9_-]{43}$/);
    expect(created.stderr).toMatch(/shown this once/);
    const id = /token (tok_[a-f0-9]+)/.exec(created.stderr)?.[1] ?? '';
    expect(nexus.running.core.tokens.store.get(id)).toMatchObject({ name: 'ci bot', class: 'write', state: 'active' });

    const port = nexus.running.host.port;
    const ok = await rawRequest(port, {
      path: '/api/mcp',
      headers: { authorization: `Bearer ${secret}` },
      body: toolCall('list_workspaces', {}),
    });
    expect(ok.status).toBe(200);

    const list = await nexusCli(['token', 'list', '--data-dir', nexus.dataDir]);
    expect(list.stdout).toContain(id);
    expect(list.stdout).toContain('"ci bot"');
    expect(list.stdout).not.toContain(secret.slice(10));
    const listed = JSON.parse((await nexusCli(['token', 'list', '--json', '--data-dir', nexus.dataDir])).stdout) as {
      tokens: { id: string; name: string }[];
    };
    expect(listed.tokens).toContainEqual(expect.objectContaining({ id, name: 'ci bot' }));
    expect(JSON.stringify(listed)).not.toContain(secret.slice(10));

    const revoked = await nexusCli(['token', 'revoke', id, '--data-dir', nexus.dataDir]);
    expect(revoked.stdout).toContain(`Revoked ${id}`);
    const refused = await rawRequest(port, {
      path: '/api/mcp',
      headers: { authorization: `Bearer ${secret}` },
      body: toolCall('list_workspaces', {}),
    });
    expect(refused.status).toBe(401);
    // Six CLI processes, each starting Node and tsx: slow on a loaded 2-core machine.
  }, 120_000);

  it('adds, lists and removes an approval rule through the running app, which applies it at once', async () => {
    const added = await nexusCli([
      'rules',
      'add',
      'deny',
      'shell',
      'make deploy',
      '--note',
      'never from a session',
      '--data-dir',
      nexus.dataDir,
    ]);
    const id = /^(\S+)\s+deny/.exec(added.stdout)?.[1] ?? '';
    expect(nexus.running.core.rules.list({}).find((r) => r.id === id)).toMatchObject({
      action: 'deny',
      tool: 'shell',
      pattern: 'make deploy',
      scope: 'global',
      note: 'never from a session',
    });
    const listed = await nexusCli(['rules', 'list', '--data-dir', nexus.dataDir]);
    expect(listed.stdout).toContain(id);
    expect(listed.stdout).not.toContain('default:');
    expect((await nexusCli(['rules', 'rm', id, '--data-dir', nexus.dataDir])).stdout).toContain(`Removed rule ${id}`);
    expect(nexus.running.core.rules.list({}).some((r) => r.id === id)).toBe(false);
  }, 90_000);

  it('creates a token on the data dir directly when the app is not running', async () => {
    const dir = tempDir();
    try {
      const created = await nexusCli([
        'token',
        'create',
        '--class',
        'read',
        '--name',
        'offline',
        '--data-dir',
        dir.path,
      ]);
      expect(created.stdout.trim()).toMatch(/^nxs_r_/);
      const list = await nexusCli(['token', 'list', '--data-dir', dir.path]);
      expect(list.stdout).toContain('"offline"');
    } finally {
      dir.remove();
    }
  });

  it('refuses a bad class or expiry with a clear message', async () => {
    await expect(
      nexusCli(['token', 'create', '--class', 'operator', '--name', 'x', '--data-dir', nexus.dataDir]),
    ).rejects.toMatchObject({ stderr: expect.stringMatching(/--class must be read, write or vault/) });
    expect(() => parseExpiry('0d')).toThrow(/--expires/);
    expect(() => parseExpiry('999d')).toThrow(/--expires/);
    expect(parseExpiry('30d')).toBe(30);
    expect(parseExpiry('2030-01-11', new Date('2030-01-01T00:00:00Z'))).toBe(10);
  });

  it('bridges Claude Desktop’s stdio to the running app with NEXUS_TOKEN, filtered by its class', async () => {
    const { secret } = await nexus.running.core.dispatcher.call(
      'tokens.create',
      { name: 'stdio', class: 'read' },
      operatorContext('http'),
    );
    const client = await stdioClient(nexus.dataDir, { NEXUS_TOKEN: secret });
    try {
      expect(client.getServerVersion()?.name).toBe('nexus');
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name).sort()).toEqual(READ_CLASS_TOOLS);
      const info = await client.callTool({ name: 'get_nexus_info', arguments: {} });
      expect(info.structuredContent).toMatchObject({ version: 'test' });
      const list = await client.callTool({ name: 'list_workspaces', arguments: {} });
      expect(list.structuredContent).toEqual({ workspaces: expect.any(Array) });
    } finally {
      await client.close();
    }
  });

  it('bridges with the token "Connect Claude Desktop" kept in the OS keychain', async () => {
    {
      const connected = await nexus.running.core.dispatcher.call(
        'connect.claudeDesktop',
        { class: 'write' },
        operatorContext('http'),
      );
      expect(connected.token.class).toBe('write');
      const client = await stdioClient(nexus.dataDir);
      try {
        const { tools } = await client.listTools();
        expect(tools.map((t) => t.name)).toContain('send_message');
        expect(tools.map((t) => t.name)).not.toContain('create_workspace');
      } finally {
        await client.close();
      }
    }
  });

  it('answers every request with a clear error once the token is revoked', async () => {
    const { token, secret } = await nexus.running.core.dispatcher.call(
      'tokens.create',
      { name: 'soon revoked', class: 'read' },
      operatorContext('http'),
    );
    const client = await stdioClient(nexus.dataDir, { NEXUS_TOKEN: secret });
    try {
      await nexus.running.core.tokens.revoke(token.id);
      await expect(client.callTool({ name: 'list_workspaces', arguments: {} })).rejects.toThrow(
        /refused|401|nauthori/i,
      );
    } finally {
      await client.close();
    }
  });
});
