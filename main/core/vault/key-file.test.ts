import { afterEach, describe, expect, it } from 'vitest';
import { execFile } from 'node:child_process';
import { chmodSync, chownSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { promisify } from 'node:util';
import { repoRoot } from '../../../test/helpers/core';
import { tempDir } from '../../../test/helpers/temp-dir';
import { keyFileFromEnv, readKeyFile } from './key-file';

const run = promisify(execFile);
type Out = Record<string, { state?: string; reason?: string; mode?: string; code?: string; message?: string }>;

/** The open-vault child with no D-Bus session bus (no keychain at all) and NEXUS_VAULT_KEY_FILE set. */
async function withKeyFile(dataDir: string, keyFile: string, action: 'status' | 'init'): Promise<Out> {
  const env = {
    ...process.env,
    DBUS_SESSION_BUS_ADDRESS: 'unix:path=/nonexistent/nexus-no-bus',
    NEXUS_VAULT_KEY_FILE: keyFile,
  };
  const { stdout } = await run(process.execPath, ['--import', 'tsx', 'test/children/open-vault.ts', dataDir, action], {
    cwd: repoRoot,
    env,
    timeout: 60_000,
  });
  return JSON.parse(stdout.trim().split('\n').at(-1)!) as Out;
}

describe('a vault key file for an unattended service', () => {
  const dirs: ReturnType<typeof tempDir>[] = [];
  const fresh = () => {
    const d = tempDir('nexus-keyfile-');
    dirs.push(d);
    mkdirSync(join(d.path, 'data'));
    return { data: join(d.path, 'data'), key: join(d.path, 'vault.key') };
  };
  const writeKey = (path: string, mode: number) => {
    writeFileSync(path, randomBytes(32), { mode });
    chmodSync(path, mode);
  };
  afterEach(() => {
    for (const d of dirs.splice(0)) d.remove();
  });

  it('refuses a key file others can read (mode 0644), says why and how to fix it, and stores nothing', async () => {
    const { data, key } = fresh();
    writeKey(key, 0o644);
    const out = await withKeyFile(data, key, 'init');
    expect(out.started).toMatchObject({ state: 'uninitialized' });
    expect(out.started!.reason).toContain(`The vault key file ${key} has mode 0644`);
    expect(out.error).toMatchObject({ code: 'bad_request' });
    expect(out.error!.message).toMatch(
      /mode 0644 \(others can read it\); refusing it\. Run: chmod 600 .*Nothing was stored/,
    );
    expect((await withKeyFile(data, key, 'status')).started).toMatchObject({ state: 'uninitialized', mode: null });
  });

  it('with a 0600 key file sets up without a keychain and starts unsealed every time; loosened to 0644 it starts locked with the reason', async () => {
    const { data, key } = fresh();
    writeKey(key, 0o600);
    const init = await withKeyFile(data, key, 'init');
    expect(init.init).toMatchObject({ state: 'unlocked', mode: 'key_file' });

    const restarted = await withKeyFile(data, key, 'status');
    expect(restarted.started).toMatchObject({ state: 'unlocked', mode: 'key_file' });
    expect(restarted.started!.reason).toBe(`Unlocked with the key file ${key}.`);
    expect(restarted.board).toMatchObject({ state: 'unlocked', mode: 'key_file' });

    chmodSync(key, 0o644);
    const loose = await withKeyFile(data, key, 'status');
    expect(loose.started).toMatchObject({ state: 'locked', mode: 'key_file' });
    expect(loose.started!.reason).toMatch(/has mode 0644 \(others can read it\); refusing it/);
  });

  it('refuses a key file owned by another user', () => {
    const { key } = fresh();
    writeKey(key, 0o600);
    // As root, hand the file to nobody; as anyone else, a root-owned file is someone else's already.
    const path = process.getuid?.() === 0 ? (chownSync(key, 65534, 65534), key) : '/etc/passwd';
    const read = readKeyFile(path);
    expect(read).toMatchObject({ kind: 'refused' });
    expect(read.kind === 'refused' && read.reason).toMatch(/is owned by uid \d+, not by the user Nexus runs as/);
  });

  it('refuses a key file that is too short to be a key', () => {
    const { key } = fresh();
    writeFileSync(key, 'short', { mode: 0o600 });
    expect(readKeyFile(key)).toMatchObject({ kind: 'refused', reason: expect.stringMatching(/holds 5 bytes/) });
  });

  it("finds systemd's LoadCredential= file, and NEXUS_VAULT_KEY_FILE wins over it", () => {
    const { data } = fresh();
    expect(keyFileFromEnv({ CREDENTIALS_DIRECTORY: data })).toBeUndefined();
    writeKey(join(data, 'nexus-vault-key'), 0o400);
    expect(keyFileFromEnv({ CREDENTIALS_DIRECTORY: data })).toBe(join(data, 'nexus-vault-key'));
    expect(readKeyFile(join(data, 'nexus-vault-key'))).toMatchObject({ kind: 'ok' });
    expect(keyFileFromEnv({ CREDENTIALS_DIRECTORY: data, NEXUS_VAULT_KEY_FILE: '/srv/k' })).toBe('/srv/k');
  });
});
