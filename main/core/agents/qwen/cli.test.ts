import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { testAcpCli } from '../../../../test/helpers/acp-cli';
import { tempDir } from '../../../../test/helpers/temp-dir';
import { QWEN_ACP_ARGV, QWEN_CLI, QWEN_CLI_MOUNT, QWEN_CLI_PACKAGE, QWEN_CLI_VERSION, QwenCli } from './cli';

describe('the pinned Qwen Code CLI', () => {
  let dir: ReturnType<typeof tempDir>;
  beforeEach(() => (dir = tempDir('nexus-qwen-cli-')));
  afterEach(() => dir.remove());

  it('finds the install scripts/install-acp-cli.sh made, the pinned version, and its argv names the mounted entry', () => {
    const { prefix, entry } = testAcpCli(QWEN_CLI);
    expect(prefix.endsWith(`/qwen-${QWEN_CLI_VERSION}`)).toBe(true);
    const cli = new QwenCli({ sharedDirs: [join(prefix, '..')] });
    expect(cli.info()).toEqual({ package: QWEN_CLI_PACKAGE, version: QWEN_CLI_VERSION, source: null });
    expect(cli.find('x64')).toEqual({ mountDir: prefix, entry, version: QWEN_CLI_VERSION, source: 'installed' });
    expect(cli.info().source).toBe('installed');
    expect(QWEN_ACP_ARGV.slice(1)).toEqual([`${QWEN_CLI_MOUNT}/${entry}`, '--acp']);
    expect(execFileSync(process.execPath, [join(prefix, entry), '--version'], { encoding: 'utf8' }).trim()).toBe(
      QWEN_CLI_VERSION,
    );
  });

  it('uses a configured install, and finds none where there is none', () => {
    const { prefix } = testAcpCli(QWEN_CLI);
    expect(new QwenCli({ cliDir: prefix }).find('x64')?.source).toBe('configured');
    const cli = new QwenCli({ sharedDirs: [dir.path] });
    expect(cli.find('x64')).toBeNull();
    expect(new QwenCli({ cliDir: dir.path }).find('x64')).toBeNull();
    expect(() => cli.require('arm64')).toThrow(/scripts\/install-acp-cli\.sh qwen arm64.*NEXUS_QWEN_CLI_DIR/);
  });
});
