import { execFile } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBearerProxy } from '../../../test/helpers/bearer-proxy';
import { repoRoot } from '../../../test/helpers/core';
import { mintToken, startNexus } from '../../../test/helpers/mcp';
import { tempDir } from '../../../test/helpers/temp-dir';

const run = promisify(execFile);
const runner = join(repoRoot, 'node_modules', '.bin', 'conformance');

interface Check {
  id: string;
  status: 'SUCCESS' | 'FAILURE' | 'WARNING' | 'SKIPPED' | 'INFO';
  errorMessage?: string;
}

/**
 * The MCP conformance runner (@modelcontextprotocol/conformance 0.1.13) against a live Nexus. The
 * runner cannot send a bearer header, so it talks to a loopback proxy that adds one; the server's
 * authentication stays on (the last test proves the proxy is the only way in).
 */
describe('MCP conformance server scenarios', () => {
  let nexus: Awaited<ReturnType<typeof startNexus>>;
  let proxy: Awaited<ReturnType<typeof startBearerProxy>>;
  const out = tempDir('nexus-conformance-');

  beforeAll(async () => {
    nexus = await startNexus();
    proxy = await startBearerProxy(
      nexus.running.host.port,
      (await mintToken(nexus.running, 'read', 'conformance')).secret,
    );
  });
  afterAll(async () => {
    await proxy.close();
    await nexus.stop();
    out.remove();
  });

  let runs = 0;
  const scenario = async (name: string, url = `${proxy.url}/api/mcp`): Promise<Check[]> => {
    const dir = join(out.path, `${++runs}-${name}`);
    await run(runner, ['server', '--url', url, '--scenario', name, '--output-dir', dir], { timeout: 60_000 }).catch(
      (e: unknown) => e,
    );
    const [result] = readdirSync(dir);
    return JSON.parse(readFileSync(join(dir, result ?? '', 'checks.json'), 'utf8')) as Check[];
  };

  for (const name of ['server-initialize', 'ping', 'tools-list', 'dns-rebinding-protection']) {
    it(`passes ${name}`, async () => {
      const checks = await scenario(name);
      expect(checks.length).toBeGreaterThan(0);
      for (const check of checks) expect(check, check.errorMessage).toMatchObject({ status: 'SUCCESS' });
      if (name === 'dns-rebinding-protection') {
        expect(checks.map((c) => c.id).sort()).toEqual([
          'localhost-host-rebinding-rejected',
          'localhost-host-valid-accepted',
        ]);
      }
    });
  }

  it('fails server-initialize when the runner goes around the proxy: authentication was never switched off', async () => {
    const checks = await scenario('server-initialize', nexus.mcpUrl);
    expect(checks[0]?.status).toBe('FAILURE');
  }, 90_000);
});
