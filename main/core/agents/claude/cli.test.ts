import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { testAgentCliDir } from '../../../../test/helpers/agent-cli';
import { tempDir } from '../../../../test/helpers/temp-dir';
import { cpuOf } from '../agent-cpu';
import { AGENT_CLI_PACKAGE, AGENT_CLI_VERSION, AgentCli } from './cli';

describe('the pinned agent CLI', () => {
  let dir: ReturnType<typeof tempDir>;
  beforeEach(() => (dir = tempDir('nexus-agent-cli-')));
  afterEach(() => dir.remove());

  it('uses a configured install and reports its version', async () => {
    const binaryDir = testAgentCliDir('x64');
    const cli = new AgentCli({ dataDir: dir.path, cliDir: join(binaryDir, '..', '..', '..') });
    expect(cli.info()).toEqual({ package: AGENT_CLI_PACKAGE, version: AGENT_CLI_VERSION, source: null });
    const got = await cli.ensure('x64');
    expect(got).toEqual({ binaryDir, version: AGENT_CLI_VERSION, source: 'configured' });
    expect(existsSync(join(got.binaryDir, 'claude'))).toBe(true);
    expect(cli.info().source).toBe('configured');
  });

  it('finds the shared install scripts/install-agent-cli.sh made before installing anything', async () => {
    const binaryDir = testAgentCliDir('x64');
    const cli = new AgentCli({
      dataDir: dir.path,
      npm: join(dir.path, 'no-npm-here'),
      sharedDirs: [join(binaryDir, '..', '..', '..', '..')],
    });
    expect(await cli.ensure('x64')).toEqual({ binaryDir, version: AGENT_CLI_VERSION, source: 'installed' });
  });

  it('says what to do when the configured directory holds no binary', async () => {
    const cli = new AgentCli({ dataDir: dir.path, cliDir: dir.path });
    await expect(cli.ensure('x64')).rejects.toMatchObject({
      code: 'unavailable',
      message: expect.stringContaining('scripts/install-agent-cli.sh'),
    });
  });

  it('says what to do when npm is missing, and leaves nothing half-installed', async () => {
    const cli = new AgentCli({ dataDir: dir.path, npm: join(dir.path, 'no-npm-here'), sharedDirs: [] });
    await expect(cli.ensure('x64')).rejects.toMatchObject({
      code: 'unavailable',
      message: expect.stringMatching(/npm was not found.*NEXUS_AGENT_CLI_DIR/),
    });
    expect(readdirSync(join(dir.path, 'agent-cli'))).toEqual([]);
  });

  it('says the registry is unreachable when npm is offline', async () => {
    const saved = { ...process.env };
    Object.assign(process.env, {
      npm_config_registry: 'http://127.0.0.1:9/',
      npm_config_fetch_retries: '0',
      npm_config_cache: join(dir.path, 'npm-cache'),
      npm_config_prefer_online: 'true',
    });
    try {
      const cli = new AgentCli({ dataDir: dir.path, sharedDirs: [] });
      await expect(cli.ensure('x64')).rejects.toMatchObject({
        code: 'unavailable',
        message: expect.stringContaining('the npm registry is not reachable'),
      });
    } finally {
      process.env = saved;
    }
  }, 60_000);

  it("maps the engine's architecture to npm's cpu name", () => {
    expect(cpuOf('x86_64')).toBe('x64');
    expect(cpuOf('aarch64')).toBe('arm64');
    expect(() => cpuOf('s390x')).toThrow(/x86_64 and arm64/);
  });
});
