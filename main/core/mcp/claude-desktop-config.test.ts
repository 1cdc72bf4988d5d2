import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { tempDir } from '../../../test/helpers/temp-dir';
import { claudeDesktopConfigPath, readServerEntry, writeServerEntry } from './claude-desktop-config';

const entry = {
  command: '/opt/Nexus/nexus',
  args: ['/opt/Nexus/cli.js', 'mcp-stdio', '--data-dir', '/home/op/.local/share/nexus-desktop'],
};

describe('the Claude Desktop config writer', () => {
  const dir = tempDir();
  afterEach(() => dir.remove());
  const file = join(dir.path, 'Claude', 'claude_desktop_config.json');
  const read = () => JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;

  it('knows the platform paths', () => {
    expect(claudeDesktopConfigPath('darwin', {}, '/Users/op')).toBe(
      '/Users/op/Library/Application Support/Claude/claude_desktop_config.json',
    );
    expect(claudeDesktopConfigPath('win32', { APPDATA: 'C:\\Users\\op\\AppData\\Roaming' }, 'C:\\Users\\op')).toMatch(
      /Roaming.Claude.claude_desktop_config\.json$/,
    );
    expect(claudeDesktopConfigPath('linux', {}, '/home/op')).toBe('/home/op/.config/Claude/claude_desktop_config.json');
    expect(claudeDesktopConfigPath('linux', { XDG_CONFIG_HOME: '/cfg' }, '/home/op')).toBe(
      '/cfg/Claude/claude_desktop_config.json',
    );
  });

  it('creates the file when there is none, without a backup', () => {
    expect(writeServerEntry(file, 'nexus', entry)).toEqual({ changed: true, backupPath: null });
    expect(read()).toEqual({ mcpServers: { nexus: entry } });
    expect(statSync(file).mode & 0o777).toBe(0o600);
  });

  it('keeps every other server and top-level setting, and backs the old file up first', () => {
    const existing = {
      globalShortcut: 'Ctrl+Space',
      mcpServers: {
        filesystem: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-filesystem', '/home/op'] },
        github: {
          command: 'docker',
          args: ['run', '-i', 'ghcr.io/github/github-mcp-server'],
          env: { GITHUB_PERSONAL_ACCESS_TOKEN: 'ghp_keepme' },
        },
      },
    };
    writeServerEntry(file, 'nexus', entry); // make the folder
    writeFileSync(file, JSON.stringify(existing, null, 4));
    const original = readFileSync(file, 'utf8');
    const { changed, backupPath } = writeServerEntry(file, 'nexus', entry);
    expect(changed).toBe(true);
    expect(backupPath && readFileSync(backupPath, 'utf8')).toBe(original);
    expect(read()).toEqual({ ...existing, mcpServers: { ...existing.mcpServers, nexus: entry } });
    expect(readServerEntry(file, 'nexus')).toEqual(entry);
  });

  it('is idempotent: the same entry again writes nothing and makes no backup', () => {
    writeServerEntry(file, 'nexus', entry);
    const before = readFileSync(file, 'utf8');
    expect(writeServerEntry(file, 'nexus', entry)).toEqual({ changed: false, backupPath: null });
    expect(readFileSync(file, 'utf8')).toBe(before);
    expect(readdirSync(join(dir.path, 'Claude')).filter((f) => f.includes('backup'))).toEqual([]);
  });

  it('replaces only its own entry when it changes', () => {
    writeServerEntry(file, 'nexus', entry);
    writeServerEntry(file, 'other', { command: 'x', args: [] });
    const moved = { ...entry, args: [...entry.args.slice(0, -1), '/data/elsewhere'] };
    expect(writeServerEntry(file, 'nexus', moved).changed).toBe(true);
    expect(read()).toEqual({ mcpServers: { nexus: moved, other: { command: 'x', args: [] } } });
  });

  it('refuses to touch a file that is not valid JSON or not a Claude Desktop config', () => {
    writeServerEntry(file, 'nexus', entry);
    writeFileSync(file, '{ "mcpServers": { broken');
    expect(() => writeServerEntry(file, 'nexus', entry)).toThrow(/not valid JSON/);
    expect(readFileSync(file, 'utf8')).toBe('{ "mcpServers": { broken');
    writeFileSync(file, '{ "mcpServers": [] }');
    expect(() => writeServerEntry(file, 'nexus', entry)).toThrow(/mcpServers/);
    expect(existsSync(`${file}.nexus-${process.pid}.tmp`)).toBe(false);
  });
});
