import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repoRoot } from '../../test/helpers/core';
import { startNexus } from '../../test/helpers/mcp';
import { tempDir } from '../../test/helpers/temp-dir';
import { operatorContext } from '../core/handlers';

const exec = promisify(execFile);
/** `nexus status …`: exit code and stdout (a non-zero exit is an answer here, not a failure). */
const nexusStatus = async (args: string[]): Promise<{ code: number; stdout: string }> => {
  try {
    const r = await exec(process.execPath, ['--import', 'tsx', 'main/cli.ts', 'status', ...args], {
      cwd: repoRoot,
      timeout: 60_000,
    });
    return { code: 0, stdout: r.stdout };
  } catch (e) {
    const err = e as { code?: number; stdout?: string };
    return { code: err.code ?? -1, stdout: err.stdout ?? '' };
  }
};

describe('nexus status', () => {
  let nexus: Awaited<ReturnType<typeof startNexus>>;
  beforeAll(async () => {
    nexus = await startNexus();
  });
  afterAll(async () => {
    await nexus?.stop();
  });

  it("prints the running app's URL and vault state, and what needs the operator once the vault is locked", async () => {
    const url = nexus.running.host.url;
    const open = await nexusStatus(['--data-dir', nexus.dataDir]);
    expect(open.code).toBe(0);
    expect(open.stdout).toContain(`is running (pid ${process.pid}`);
    expect(open.stdout).toContain(`URL:    ${url}/`);
    expect(open.stdout).toMatch(/Vault: {2}unlocked — /);
    expect(open.stdout).not.toContain('token=');

    await nexus.running.core.dispatcher.call('vault.lock', {}, operatorContext('http'));
    const locked = await nexusStatus(['--data-dir', nexus.dataDir, '--login']);
    expect(locked.stdout).toMatch(/Vault: {2}locked — /);
    expect(locked.stdout).toMatch(/Needs you:\n {2}- Vault locked: /);
    expect(locked.stdout).toContain(`Sign in: ${url}/?token=${nexus.running.host.token}`);
  });

  it('says clearly that Nexus is not running, with exit code 3, when nothing answers', async () => {
    const empty = tempDir('nexus-status-none-');
    try {
      const none = await nexusStatus(['--data-dir', empty.path]);
      expect(none.code).toBe(3);
      expect(none.stdout).toContain(`Nexus is not running on ${empty.path} (no serve.json there)`);
      // serve.json left behind by a crashed app: its port no longer answers.
      writeFileSync(
        join(empty.path, 'serve.json'),
        JSON.stringify({ url: 'http://127.0.0.1:9', port: 9, token: 't', pid: 1 }),
        { mode: 0o600 },
      );
      const stale = await nexusStatus(['--data-dir', empty.path]);
      expect(stale.code).toBe(3);
      expect(stale.stdout).toContain('nothing answers at http://127.0.0.1:9');
    } finally {
      empty.remove();
    }
  });
});
