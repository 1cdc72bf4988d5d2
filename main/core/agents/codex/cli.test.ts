import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { testCodexCliDir } from '../../../../test/helpers/agent-cli';
import { tempDir } from '../../../../test/helpers/temp-dir';
import { CODEX_CLI_PACKAGE, CODEX_CLI_VERSION, CODEX_SHARED_DIR_NAME, CodexCli } from './cli';

describe('the pinned Codex CLI', () => {
  let dir: ReturnType<typeof tempDir>;
  beforeEach(() => (dir = tempDir('nexus-codex-cli-')));
  afterEach(() => dir.remove());

  it('finds the install scripts/install-codex-cli.sh made, and that binary is the pinned version', () => {
    const binaryDir = testCodexCliDir('x64');
    const prefix = join(binaryDir, '..', '..', '..', '..', '..');
    const cli = new CodexCli({ sharedDirs: [join(prefix, '..')] });
    expect(prefix.endsWith(CODEX_SHARED_DIR_NAME)).toBe(true);
    expect(cli.info()).toEqual({ package: CODEX_CLI_PACKAGE, version: CODEX_CLI_VERSION, source: null });
    expect(cli.find('x64')).toEqual({ binaryDir, version: CODEX_CLI_VERSION, source: 'installed' });
    expect(cli.info().source).toBe('installed');
    expect(execFileSync(join(binaryDir, 'bin', 'codex'), ['--version'], { encoding: 'utf8' }).trim()).toBe(
      `codex-cli ${CODEX_CLI_VERSION}`,
    );
  });

  it('uses a configured install', () => {
    const binaryDir = testCodexCliDir('x64');
    const cli = new CodexCli({ cliDir: join(binaryDir, '..', '..', '..', '..', '..') });
    expect(cli.find('x64')).toEqual({ binaryDir, version: CODEX_CLI_VERSION, source: 'configured' });
  });

  it('says how to install it when no install is there', () => {
    const cli = new CodexCli({ sharedDirs: [dir.path] });
    expect(cli.find('x64')).toBeNull();
    expect(() => cli.require('x64')).toThrow(/scripts\/install-codex-cli\.sh x64/);
  });
});
