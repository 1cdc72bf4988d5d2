import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { testAcpCli } from '../../../../test/helpers/acp-cli';
import { tempDir } from '../../../../test/helpers/temp-dir';
import {
  COPILOT_ACP_ARGV,
  COPILOT_CLI,
  COPILOT_CLI_MOUNT,
  COPILOT_CLI_PACKAGE,
  COPILOT_CLI_VERSION,
  COPILOT_PKG_CACHE,
  CopilotCli,
} from './cli';

describe('the pinned Copilot CLI', () => {
  let dir: ReturnType<typeof tempDir>;
  beforeEach(() => (dir = tempDir('nexus-copilot-cli-')));
  afterEach(() => dir.remove());

  it('finds the platform binary in the install scripts/install-acp-cli.sh made: the pinned version, run directly', () => {
    const { prefix, mountDir } = testAcpCli(COPILOT_CLI);
    expect(prefix.endsWith(`/copilot-${COPILOT_CLI_VERSION}`)).toBe(true);
    expect(mountDir).toBe(join(prefix, 'node_modules', '@github', 'copilot-linux-x64'));
    const cli = new CopilotCli({ sharedDirs: [join(prefix, '..')] });
    expect(cli.info()).toEqual({ package: COPILOT_CLI_PACKAGE, version: COPILOT_CLI_VERSION, source: null });
    expect(cli.find('x64')).toEqual({ mountDir, entry: 'copilot', version: COPILOT_CLI_VERSION, source: 'installed' });
    expect(COPILOT_ACP_ARGV.slice(0, 2)).toEqual([`${COPILOT_CLI_MOUNT}/copilot`, '--acp']);
  });

  it('runs from the files the install unpacked into the mount: nothing unpacked into the home at its first run', () => {
    const { mountDir } = testAcpCli(COPILOT_CLI);
    const cache = join(mountDir, COPILOT_PKG_CACHE);
    expect(existsSync(join(cache, 'pkg', 'linux-x64', COPILOT_CLI_VERSION, '.extraction-complete'))).toBe(true);
    const out = execFileSync(join(mountDir, 'copilot'), ['--version', '--no-auto-update'], {
      encoding: 'utf8',
      env: { PATH: process.env.PATH, HOME: dir.path, COPILOT_PKG_CACHE_HOME: cache, COPILOT_AUTO_UPDATE: 'false' },
    });
    expect(out).toContain(`GitHub Copilot CLI ${COPILOT_CLI_VERSION}.`);
    expect(existsSync(join(dir.path, '.cache', 'copilot'))).toBe(false);
    expect(readdirSync(join(cache, 'pkg', 'linux-x64'))).toEqual([COPILOT_CLI_VERSION]);
  });

  it('uses a configured install, and finds none where there is none', () => {
    const { prefix, mountDir } = testAcpCli(COPILOT_CLI);
    expect(new CopilotCli({ cliDir: prefix }).find('x64')).toMatchObject({ mountDir, source: 'configured' });
    const cli = new CopilotCli({ sharedDirs: [dir.path] });
    expect(cli.find('x64')).toBeNull();
    expect(() => cli.require('arm64')).toThrow(/scripts\/install-acp-cli\.sh copilot arm64.*NEXUS_COPILOT_CLI_DIR/);
  });
});
