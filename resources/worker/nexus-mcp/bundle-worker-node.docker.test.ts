import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nexusMcpEnv } from '../../../main/core/platform/nexus-mcp-env';
import { WORKER_NODE } from '../../../main/core/docker';
import { pinnedWorkerNode } from '../../../test/helpers/docker';
import { platformFixture } from '../../../test/helpers/platform-fixture';
import { repoRoot } from '../../../test/helpers/core';
import { tempDir } from '../../../test/helpers/temp-dir';
import { bundleWorker } from '../../../scripts/worker-bundles.mjs';

const baseImage =
  process.env.NEXUS_TEST_BASE_IMAGE ??
  execFileSync('bash', [join(repoRoot, 'scripts/build-base-image.sh')], { encoding: 'utf8' }).trim();

describe("nexus-mcp bundle in the worker base image, on the helpers' pinned Node", () => {
  const out = tempDir('nexus-mcp-bundle-');
  beforeAll(async () => {
    // The bundle the product ships (scripts/build-main.mjs builds it with the same script).
    await bundleWorker(out.path);
  });
  afterAll(() => out.remove());

  it('serves the platform tools over stdio from inside a container and reaches Core over NATS', async () => {
    const f = await platformFixture();
    const name = `nexus-platform-test-${randomBytes(4).toString('hex')}`;
    try {
      const agent = f.agent('containerised');
      const creds = await f.core.platform.createRun(agent.id);
      const env = nexusMcpEnv(creds);
      const transport = new StdioClientTransport({
        command: 'docker',
        args: [
          'run',
          '-i',
          '--rm',
          '--name',
          name,
          '--network',
          'host',
          '-v',
          `${out.path}:/opt/nexus/bundle:ro`,
          // Where the worker image holds it (resources/worker/rootfs/opt/nexus/setup.sh).
          '-v',
          `${pinnedWorkerNode().binary}:${WORKER_NODE}:ro`,
          ...Object.keys(env).flatMap((k) => ['-e', k]),
          baseImage,
          WORKER_NODE,
          '/opt/nexus/bundle/nexus-mcp.cjs',
        ],
        env: { PATH: process.env.PATH ?? '', ...env },
        stderr: 'pipe',
      });
      const client = new Client({ name: 'agent-cli-test', version: '1.0.0' });
      await client.connect(transport);
      try {
        const res = (await client.callTool({
          name: 'memory_propose',
          arguments: { content: 'proposed from a container', scope: 'private' },
        })) as CallToolResult;
        expect(res.isError).toBeFalsy();
        expect(f.core.review.memories.pending().map((m) => [m.content, m.runId])).toEqual([
          ['proposed from a container', creds.runId],
        ]);
      } finally {
        await client.close();
      }
    } finally {
      // --rm normally removed it already; make sure nothing of ours is left behind.
      try {
        execFileSync('docker', ['rm', '-f', name], { stdio: 'ignore' });
      } catch {
        // already gone
      }
      await f.cleanup();
    }
  }, 120_000);
});
