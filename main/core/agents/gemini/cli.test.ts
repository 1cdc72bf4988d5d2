import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { testAcpCli } from '../../../../test/helpers/acp-cli';
import { tempDir } from '../../../../test/helpers/temp-dir';
import {
  GEMINI_ACP_ARGV,
  GEMINI_CLI,
  GEMINI_CLI_MOUNT,
  GEMINI_CLI_PACKAGE,
  GEMINI_CLI_VERSION,
  GeminiCli,
} from './cli';

describe('the pinned Gemini CLI', () => {
  let dir: ReturnType<typeof tempDir>;
  beforeEach(() => (dir = tempDir('nexus-gemini-cli-')));
  afterEach(() => dir.remove());

  it('finds the install scripts/install-acp-cli.sh made, the pinned version, and its argv names the mounted entry', () => {
    const { prefix, entry } = testAcpCli(GEMINI_CLI);
    expect(prefix.endsWith(`/gemini-${GEMINI_CLI_VERSION}`)).toBe(true);
    const cli = new GeminiCli({ sharedDirs: [join(prefix, '..')] });
    expect(cli.info()).toEqual({ package: GEMINI_CLI_PACKAGE, version: GEMINI_CLI_VERSION, source: null });
    expect(cli.find('x64')).toEqual({ mountDir: prefix, entry, version: GEMINI_CLI_VERSION, source: 'installed' });
    expect(cli.info().source).toBe('installed');
    expect(GEMINI_ACP_ARGV.slice(1)).toEqual([`${GEMINI_CLI_MOUNT}/${entry}`, '--acp']);
    expect(execFileSync(process.execPath, [join(prefix, entry), '--version'], { encoding: 'utf8' }).trim()).toBe(
      GEMINI_CLI_VERSION,
    );
  });

  it('uses a configured install, and finds none where there is none', () => {
    const { prefix } = testAcpCli(GEMINI_CLI);
    expect(new GeminiCli({ cliDir: prefix }).find('x64')?.source).toBe('configured');
    const cli = new GeminiCli({ sharedDirs: [dir.path] });
    expect(cli.find('x64')).toBeNull();
    expect(new GeminiCli({ cliDir: dir.path }).find('x64')).toBeNull();
    expect(() => cli.require('arm64')).toThrow(/scripts\/install-acp-cli\.sh gemini arm64.*NEXUS_GEMINI_CLI_DIR/);
  });
});
