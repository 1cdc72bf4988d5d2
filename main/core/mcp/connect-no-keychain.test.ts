import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeCore, noKeychainDataDir } from '../../../test/helpers/no-keychain';
import type { Core } from '..';
import { operatorContext } from '../handlers';
import { STDIO_TOKEN_FILE } from './stdio-credential';

const op = operatorContext('http');

describe('Connect Claude Desktop on a machine without an OS keychain', () => {
  const dir = noKeychainDataDir(undefined, (d) => ({
    mcp: { claudeDesktopConfig: join(d, 'claude_desktop_config.json') },
  }));
  const config = join(dir.path, 'claude_desktop_config.json');
  const file = join(dir.path, STDIO_TOKEN_FILE);
  let core: Core;
  beforeAll(async () => {
    core = await dir.open();
  });
  afterAll(async () => {
    await closeCore(core);
    dir.remove();
  });

  it('keeps the token in a 0600 file beside serve.json, with no vault needed and none in the config', async () => {
    expect((await core.dispatcher.call('vault.status', {}, op)).state).toBe('uninitialized');
    const result = await core.dispatcher.call('connect.claudeDesktop', { class: 'read' }, op);
    expect(result).toMatchObject({ newToken: true, changed: true, token: { class: 'read', state: 'active' } });
    const kept = readFileSync(file, 'utf8').trim();
    expect(kept).toMatch(/^nxs_r_/);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect((await core.tokens.authenticate(kept)).ok).toBe(true);
    expect(readFileSync(config, 'utf8')).not.toMatch(/nxs_/);
    expect(JSON.stringify(result)).not.toContain(kept);
  });

  it('reuses the filed token, and replaces it (revoking the old one) when another class is asked for', async () => {
    const before = readFileSync(file, 'utf8').trim();
    expect(await core.dispatcher.call('connect.claudeDesktop', { class: 'read' }, op)).toMatchObject({
      newToken: false,
      changed: false,
    });
    const upgraded = await core.dispatcher.call('connect.claudeDesktop', { class: 'write' }, op);
    expect(upgraded).toMatchObject({ newToken: true, token: { class: 'write' } });
    const after = readFileSync(file, 'utf8').trim();
    expect(after).toMatch(/^nxs_w_/);
    expect((await core.tokens.authenticate(before)).ok).toBe(false);
    expect((await core.tokens.authenticate(after)).ok).toBe(true);
  });

  it('refuses to file a vault-class token (it would open the vault from a copy of the data dir), minting none', async () => {
    const before = readFileSync(file, 'utf8');
    const count = (await core.dispatcher.call('tokens.list', {}, op)).tokens.length;
    await expect(core.dispatcher.call('connect.claudeDesktop', { class: 'vault' }, op)).rejects.toMatchObject({
      code: 'unavailable',
      message: expect.stringMatching(/vault-class token there would open the vault.*Choose read or write/),
    });
    expect((await core.dispatcher.call('tokens.list', {}, op)).tokens).toHaveLength(count);
    expect(readFileSync(file, 'utf8')).toBe(before);
  });
});
