import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeCoreDb, repoRoot } from '../../test/helpers/core';
import { NoBusKeychain } from '../../test/fakes/keychains';
import { READ_CLASS_TOOLS } from '../../test/helpers/read-tools';
import { tempDir } from '../../test/helpers/temp-dir';
import { createCore, type Core } from '../core';
import { operatorContext } from '../core/handlers';
import { STDIO_TOKEN_FILE } from '../core/mcp/stdio-credential';
import { nodePorts } from '../host/node-ports';
import { startLoopback, type Loopback } from '../serve';

/** The bridge's environment on a machine without a session bus: the real OS keychain cannot answer there. */
const noBus = (): Record<string, string> =>
  Object.fromEntries(
    Object.entries(process.env).filter(
      (e): e is [string, string] =>
        typeof e[1] === 'string' && !['NEXUS_TOKEN', 'DBUS_SESSION_BUS_ADDRESS', 'DISPLAY'].includes(e[0]),
    ),
  );

describe('nexus mcp-stdio on a machine without an OS keychain', () => {
  const dir = tempDir('nexus-stdio-no-keychain-');
  const ui = tempDir('nexus-ui-');
  let core: Core;
  let loopback: Loopback;
  beforeAll(async () => {
    const ports = { ...nodePorts(dir.path, repoRoot), keychain: new NoBusKeychain() };
    core = await createCore(
      { version: 'test', mcp: { claudeDesktopConfig: join(dir.path, 'claude_desktop_config.json') } },
      ports,
    );
    loopback = await startLoopback(core, ports.host, { port: 0, rendererDir: ui.path });
  });
  afterAll(async () => {
    await loopback.close();
    closeCoreDb(core);
    await core.dispose();
    dir.remove();
    ui.remove();
  });

  it('says there is no token, without hanging on the missing keychain, before Claude Desktop is connected', async () => {
    const started = Date.now();
    await expect(
      promisify(execFile)(process.execPath, ['--import', 'tsx', 'main/cli.ts', 'mcp-stdio', '--data-dir', dir.path], {
        cwd: repoRoot,
        env: noBus(),
        timeout: 60_000,
      }),
    ).rejects.toMatchObject({ stderr: expect.stringMatching(/No MCP token/) });
    expect(Date.now() - started).toBeLessThan(30_000);
  });

  it('bridges Claude Desktop with the token "Connect Claude Desktop" filed in the data dir', async () => {
    const connected = await core.dispatcher.call('connect.claudeDesktop', { class: 'read' }, operatorContext('http'));
    expect(connected.newToken).toBe(true);
    expect(existsSync(join(dir.path, STDIO_TOKEN_FILE))).toBe(true);
    const client = new Client({ name: 'claude-desktop-stand-in', version: '1.0.0' });
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: ['--import', 'tsx', 'main/cli.ts', 'mcp-stdio', '--data-dir', dir.path],
        cwd: repoRoot,
        env: noBus(),
        stderr: 'pipe',
      }),
    );
    try {
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name).sort()).toEqual(READ_CLASS_TOOLS);
      const list = await client.callTool({ name: 'list_workspaces', arguments: {} });
      expect(list.structuredContent).toEqual({ workspaces: expect.any(Array) });
    } finally {
      await client.close();
    }
  });
});
