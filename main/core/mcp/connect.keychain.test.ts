import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startNexus } from '../../../test/helpers/mcp';
import { tempDir } from '../../../test/helpers/temp-dir';
import { operatorContext } from '../handlers';
import { STDIO_KEYCHAIN_SERVICE, STDIO_TOKEN_FILE, stdioKeychainAccount } from './stdio-credential';

describe('Settings → Connect: Claude Desktop and Claude Code', () => {
  const config = tempDir('nexus-claude-');
  const file = join(config.path, 'claude_desktop_config.json');
  let nexus: Awaited<ReturnType<typeof startNexus>>;
  const op = operatorContext('http');
  beforeAll(async () => {
    nexus = await startNexus({ mcp: { claudeDesktopConfig: file } });
  });
  afterAll(async () => {
    await nexus.stop();
    config.remove();
  });

  it('shows the MCP URL and the claude mcp add line for Claude Code', async () => {
    const info = await nexus.running.core.dispatcher.call('connect.info', {}, op);
    expect(info.mcpUrl).toBe(nexus.mcpUrl);
    expect(info.claudeCodeCommand).toBe(
      `claude mcp add --transport http nexus ${nexus.mcpUrl} --header "Authorization: Bearer <token>"`,
    );
    expect(info.claudeDesktop).toEqual({ configPath: file, connected: false, serverName: 'nexus' });
    expect(info.stdioCommand.args.slice(-3)).toEqual(['mcp-stdio', '--data-dir', nexus.dataDir]);
  });

  it('connects Claude Desktop: a config entry with no secret in it, the token in the OS keychain', async () => {
    writeFileSync(file, JSON.stringify({ mcpServers: { other: { command: 'other-server', args: [] } } }));
    const result = await nexus.running.core.dispatcher.call('connect.claudeDesktop', { class: 'read' }, op);
    expect(result).toMatchObject({
      configPath: file,
      changed: true,
      newToken: true,
      token: { class: 'read', name: 'Claude Desktop', state: 'active' },
    });
    expect(result.backupPath).not.toBeNull();
    const written = readFileSync(file, 'utf8');
    expect(JSON.parse(written).mcpServers.other).toEqual({ command: 'other-server', args: [] });
    expect(JSON.parse(written).mcpServers.nexus.args.slice(-3)).toEqual(['mcp-stdio', '--data-dir', nexus.dataDir]);
    expect(written).not.toMatch(/nxs_/);
    const kept = await nexus.running.core.ports.keychain.get(
      STDIO_KEYCHAIN_SERVICE,
      stdioKeychainAccount(nexus.dataDir),
    );
    expect(kept).toMatch(/^nxs_r_/);
    // The keychain answered: no token file in the data dir (that is only for machines without one).
    expect(existsSync(join(nexus.dataDir, STDIO_TOKEN_FILE))).toBe(false);
    expect((await nexus.running.core.dispatcher.call('connect.info', {}, op)).claudeDesktop.connected).toBe(true);
  });

  it('is idempotent: connecting again reuses the token and leaves the file alone', async () => {
    const again = await nexus.running.core.dispatcher.call('connect.claudeDesktop', { class: 'read' }, op);
    expect(again).toMatchObject({ changed: false, newToken: false, backupPath: null });
  });

  it('replaces the token, revoking the old one, when another class is asked for', async () => {
    const before = await nexus.running.core.ports.keychain.get(
      STDIO_KEYCHAIN_SERVICE,
      stdioKeychainAccount(nexus.dataDir),
    );
    const oldId = (await nexus.running.core.dispatcher.call('tokens.list', {}, op)).tokens.find(
      (t) => t.name === 'Claude Desktop' && t.state === 'active',
    )?.id;
    const upgraded = await nexus.running.core.dispatcher.call('connect.claudeDesktop', { class: 'write' }, op);
    expect(upgraded).toMatchObject({ newToken: true, token: { class: 'write' } });
    const after = await nexus.running.core.ports.keychain.get(
      STDIO_KEYCHAIN_SERVICE,
      stdioKeychainAccount(nexus.dataDir),
    );
    expect(after).toMatch(/^nxs_w_/);
    expect(after).not.toBe(before);
    expect(nexus.running.core.tokens.store.get(oldId ?? '')?.state).toBe('revoked');
  });
});
