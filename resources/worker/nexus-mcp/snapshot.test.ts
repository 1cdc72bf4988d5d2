import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nexusMcpEnv } from '../../../main/core/platform/nexus-mcp-env';
import { platformFixture } from '../../../test/helpers/platform-fixture';
import { repoRoot } from '../../../test/helpers/core';
import { tempDir } from '../../../test/helpers/temp-dir';
import { nexusMcpPlugins } from '../../../scripts/nexus-mcp-bundle.mjs';
import { newBearer, residentMcpEntry, residentRunFile } from '../../../main/core/sessions/launch/resident-mcp';
import { RESIDENT_RUN_FILE } from '../../../shared/resident-mcp';
import { freePort } from '../../../test/helpers/free-port';
import { waitFor } from '../../../test/helpers/wait';

/**
 * nexus-mcp as the worker image starts it: from a V8 startup snapshot of its bundle
 * (resources/worker/rootfs/opt/nexus/setup.sh: `node --snapshot-blob nexus-mcp.blob --build-snapshot
 * nexus-mcp.cjs`, then `node --snapshot-blob nexus-mcp.blob -- <args>`), on this Node.
 */
describe('nexus-mcp started from a startup snapshot of its bundle', () => {
  const out = tempDir('nexus-mcp-snapshot-');
  const blob = join(out.path, 'nexus-mcp.blob');
  const fromSnapshot = ['--snapshot-blob', blob, '--'];
  beforeAll(async () => {
    // The same esbuild options scripts/build-main.mjs uses for dist/worker/nexus-mcp.cjs.
    await build({
      entryPoints: [join(repoRoot, 'resources/worker/nexus-mcp/main.ts')],
      outfile: join(out.path, 'nexus-mcp.cjs'),
      bundle: true,
      platform: 'node',
      format: 'cjs',
      target: 'node24',
      logLevel: 'warning',
      plugins: nexusMcpPlugins,
    });
    execFileSync(process.execPath, ['--snapshot-blob', blob, '--build-snapshot', 'nexus-mcp.cjs'], {
      cwd: out.path,
      stdio: 'ignore',
      timeout: 60_000,
    });
  }, 90_000);
  afterAll(() => out.remove());

  async function start(env: Record<string, string>, args: string[] = []): Promise<Client> {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [...fromSnapshot, ...args],
      stderr: 'pipe',
      env: { PATH: process.env.PATH ?? '', ...env },
    });
    const client = new Client({ name: 'agent-cli-test', version: '1.0.0' });
    await client.connect(transport);
    return client;
  }

  it('reads its environment at start, not at build: each start is its own run, over NATS to Core', async () => {
    const f = await platformFixture();
    const clients: Client[] = [];
    try {
      const one = await f.core.platform.createRun(f.agent('one').id);
      const two = await f.core.platform.createRun(f.agent('two').id);
      clients.push(await start(nexusMcpEnv(one)), await start(nexusMcpEnv(two)));
      for (const [i, c] of clients.entries()) {
        const res = (await c.callTool({
          name: 'memory_propose',
          arguments: { content: `from snapshot ${i}`, scope: 'private' },
        })) as CallToolResult;
        expect(res.isError).toBeFalsy();
      }
      expect(
        f.core.review.memories
          .pending()
          .map((m) => [m.content, m.runId])
          .sort(),
      ).toEqual([
        ['from snapshot 0', one.runId],
        ['from snapshot 1', two.runId],
      ]);
    } finally {
      for (const c of clients) await c.close();
      await f.cleanup();
    }
  }, 60_000);

  it('serves as the resident server (--serve) from the same snapshot: a session calls over HTTP as its own run', async () => {
    const f = await platformFixture();
    const state = join(out.path, 'sessions');
    const ready = join(out.path, 'mcp.pid');
    const port = await freePort();
    const server = spawn(process.execPath, [...fromSnapshot, '--serve', String(port), state, ready], {
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let client: Client | undefined;
    try {
      await waitFor(() => existsSync(ready) || null, 'the resident server listening', 20_000);
      expect(readFileSync(ready, 'utf8')).toBe(String(server.pid));
      const creds = await f.core.platform.createRun(f.agent('resident').id);
      const bearer = newBearer();
      mkdirSync(join(state, 'sess1'), { recursive: true });
      writeFileSync(join(state, 'sess1', 'nats-password'), String(creds.password));
      writeFileSync(join(state, 'sess1', RESIDENT_RUN_FILE), residentRunFile(creds, bearer));
      const { url, headers } = residentMcpEntry(port, 'sess1', bearer);
      client = new Client({ name: 'agent-cli-test', version: '1.0.0' });
      await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }));
      const res = (await client.callTool({
        name: 'memory_propose',
        arguments: { content: 'from the resident snapshot', scope: 'private' },
      })) as CallToolResult;
      expect(res.isError).toBeFalsy();
      expect(f.core.review.memories.pending().map((m) => [m.content, m.runId])).toEqual([
        ['from the resident snapshot', creds.runId],
      ]);
    } finally {
      await client?.close();
      server.kill('SIGTERM');
      await f.cleanup();
    }
  }, 60_000);

  it('takes its arguments after `--`: the --filter mode runs an external server behind its allow-list', async () => {
    const f = await platformFixture();
    let client: Client | undefined;
    try {
      const creds = await f.core.platform.createRun(f.agent('filtered').id);
      // Behind the filter: nexus-mcp itself, from the same snapshot, offering every tool.
      client = await start(nexusMcpEnv(creds), ['--filter', 'skill_list', '--', process.execPath, ...fromSnapshot]);
      expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['skill_list']);
      expect((await client.callTool({ name: 'skill_list', arguments: {} })).isError).toBeFalsy();
    } finally {
      await client?.close();
      await f.cleanup();
    }
  }, 60_000);
});
