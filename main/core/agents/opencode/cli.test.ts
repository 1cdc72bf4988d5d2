import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { testAcpCli } from '../../../../test/helpers/acp-cli';
import { tempDir } from '../../../../test/helpers/temp-dir';
import {
  OPENCODE_ACP_ARGV,
  OPENCODE_CLI,
  OPENCODE_CLI_MOUNT,
  OPENCODE_CLI_PACKAGE,
  OPENCODE_CLI_VERSION,
  OpenCodeCli,
} from './cli';

describe('the pinned OpenCode CLI', () => {
  let dir: ReturnType<typeof tempDir>;
  beforeEach(() => (dir = tempDir('nexus-opencode-cli-')));
  afterEach(() => dir.remove());

  it('finds the platform binary in the install scripts/install-acp-cli.sh made: the pinned version, run directly', () => {
    const { prefix, mountDir } = testAcpCli(OPENCODE_CLI);
    expect(prefix.endsWith(`/opencode-${OPENCODE_CLI_VERSION}`)).toBe(true);
    expect(mountDir).toBe(join(prefix, 'node_modules', 'opencode-linux-x64'));
    const cli = new OpenCodeCli({ sharedDirs: [join(prefix, '..')] });
    expect(cli.info()).toEqual({ package: OPENCODE_CLI_PACKAGE, version: OPENCODE_CLI_VERSION, source: null });
    expect(cli.find('x64')).toEqual({
      mountDir,
      entry: 'bin/opencode',
      version: OPENCODE_CLI_VERSION,
      source: 'installed',
    });
    expect(OPENCODE_ACP_ARGV).toEqual([`${OPENCODE_CLI_MOUNT}/bin/opencode`, 'acp']);
    expect(execFileSync(join(mountDir, 'bin', 'opencode'), ['--version'], { encoding: 'utf8' }).trim()).toBe(
      OPENCODE_CLI_VERSION,
    );
  });

  it('uses a configured install (the npm prefix or the platform package itself), and finds none where there is none', () => {
    const { prefix, mountDir } = testAcpCli(OPENCODE_CLI);
    expect(new OpenCodeCli({ cliDir: prefix }).find('x64')).toMatchObject({ mountDir, source: 'configured' });
    expect(new OpenCodeCli({ cliDir: mountDir }).find('x64')).toMatchObject({
      mountDir,
      version: OPENCODE_CLI_VERSION,
    });
    const cli = new OpenCodeCli({ sharedDirs: [dir.path] });
    expect(cli.find('x64')).toBeNull();
    expect(cli.find('arm64')).toBeNull();
    expect(() => cli.require('x64')).toThrow(/scripts\/install-acp-cli\.sh opencode x64.*NEXUS_OPENCODE_CLI_DIR/);
  });
});
