import { userAuth } from './nats/auth';
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testCore } from '../../../test/helpers/core';
import { ensureTestWorkerImage } from '../../../test/helpers/docker';
import { dockerProxy } from '../../../test/helpers/docker-proxy';
import { TEST_NETWORK, workerHostAddress } from '../../../test/helpers/network';
import { tempDir } from '../../../test/helpers/temp-dir';
import { bundleWorkerScripts, type WorkerScripts } from '../../../test/helpers/worker-scripts';
import type { HookEvent, RunCredentials } from './platform-service';
import { nexusMcpEnv } from './nexus-mcp-env';
import { okResult } from '../../../test/helpers/platform-fixture';
import { connectRun } from '../../../test/helpers/run-client';
import { connect } from '@nats-io/transport-node';

const label = `nexus.test=nats-network-${randomBytes(3).toString('hex')}`;

/** The local addresses something listens on for `port` (TCP, IPv4 and IPv6), as `ss` prints them. */
const listeners = (port: number): string[] =>
  execFileSync('ss', ['-Hltn'], { encoding: 'utf8' })
    .split('\n')
    .map((l) => l.trim().split(/\s+/)[3] ?? '')
    .filter((a) => a.endsWith(`:${port}`));

/** nexus-mcp inside the real worker image on `network`, started the way the agent CLI starts it. */
async function bridgeInWorker(image: string, network: string, creds: RunCredentials): Promise<Client> {
  const env = Object.entries(nexusMcpEnv(creds)).flatMap(([k, v]) => ['-e', `${k}=${v}`]);
  const transport = new StdioClientTransport({
    command: 'docker',
    args: ['run', '-i', '--rm', '--label', label, '--network', network, '--user', '1000:1000', ...env].concat([
      '--entrypoint',
      '/opt/nexus/bin/nexus-mcp',
      image,
    ]),
    stderr: 'pipe',
  });
  const client = new Client({ name: 'net-test', version: '1.0.0' });
  await client.connect(transport, { timeout: 240_000 }); // docker run is slow on a busy vfs engine
  return client;
}

/** The hook forwarder inside the real worker image on `network`, with a workspace's hook credentials. */
function hookFromWorker(image: string, network: string, scripts: WorkerScripts, workspaceId: string): void {
  execFileSync(
    'docker',
    [
      'run',
      '-i',
      '--rm',
      '--label',
      label,
      '--network',
      network,
      '-v',
      `${scripts.dir}:/t:ro`,
      '-e',
      'NEXUS_SESSION_ID=s1',
      '-e',
      `NEXUS_WORKSPACE_ID=${workspaceId}`,
      '--user',
      '1000:1000',
      '--entrypoint',
      'node',
      image,
      '/t/nexus-hook.cjs',
      '/tmp/state',
      '/t/target.json',
    ],
    { input: JSON.stringify({ hook_event_name: 'Stop', session_id: 'a1' }) },
  );
}

const text = (r: unknown): string => {
  const first = (r as CallToolResult).content[0];
  return first?.type === 'text' ? first.text : JSON.stringify(r);
};

describe.each([
  { network: TEST_NETWORK, what: 'the nexus bridge (default)' },
  { network: 'host', what: 'host networking' },
])('platform NATS for workers on $what', ({ network }) => {
  let image: string;
  let env: Awaited<ReturnType<typeof testCore>>;
  let scripts: WorkerScripts;
  const dir = tempDir('nexus-natsnet-');

  beforeAll(async () => {
    image = await ensureTestWorkerImage();
    scripts = await bundleWorkerScripts(dir.path);
    chmodSync(dir.path, 0o755); // the worker user (uid 1000) reads the scripts and the hook target
    env = await testCore({ docker: { network } });
  }, 900_000);

  afterAll(async () => {
    for (const id of execFileSync('docker', ['ps', '-aq', '--filter', `label=${label}`], { encoding: 'utf8' })
      .split('\n')
      .filter(Boolean))
      execFileSync('docker', ['rm', '-f', id]);
    await env.cleanup();
    dir.remove();
  }, 120_000);

  it('listens on the one address workers reach the host on, never every interface', async () => {
    const expected = network === 'host' ? '127.0.0.1' : await workerHostAddress();
    const url = new URL(String(env.core.platform.url).replace(/^nats:/, 'http:'));
    expect(url.hostname).toBe(expected);
    expect(listeners(Number(url.port))).toEqual([`${expected}:${url.port}`]);
    expect(env.core.status.get().nats).toMatchObject({ state: 'running' });
  });

  it("lets a worker call platform tools with a run's credentials", async () => {
    const agent = env.core.platform.createAgent({ name: `net-${network}` });
    const creds = await env.core.platform.createRun(agent.id);
    const client = await bridgeInWorker(image, network, creds);
    try {
      const r = await client.callTool({ name: 'skill_list', arguments: {} }, undefined, { timeout: 60_000 });
      expect((r as CallToolResult).isError ?? false).toBe(false);
      expect(JSON.parse(text(r))).toEqual({ skills: [] });
    } finally {
      await client.close();
    }
  }, 300_000);

  it("delivers a worker's hook event with the workspace's hook credentials", async () => {
    const workspaceId = `w${randomBytes(4).toString('hex')}`;
    const c = await env.core.platform.createHookPublisher(workspaceId);
    writeFileSync(join(scripts.dir, 'target.json'), JSON.stringify({ url: c.natsUrl, user: c.user, pass: c.password }));
    const seen: HookEvent[] = [];
    const sub = env.core.platform.onHookEvent((e) => seen.push(e));
    try {
      hookFromWorker(image, network, scripts, workspaceId);
      await expect.poll(() => seen.map((e) => e.workspaceId)).toEqual([workspaceId]);
      expect(seen[0]?.event).toMatchObject({ sessionId: 's1', event: { hook_event_name: 'Stop' } });
    } finally {
      sub.dispose();
    }
  }, 300_000);
});

describe('platform NATS when Docker is down at start-up', () => {
  it('starts on loopback, says why workers cannot reach it, and moves to the bridge gateway when Docker returns', async () => {
    const proxy = await dockerProxy();
    await proxy.cut();
    const env = await testCore({ docker: { network: TEST_NETWORK, socketPath: proxy.socketPath } });
    try {
      expect(String(env.core.platform.url)).toMatch(/^nats:\/\/127\.0\.0\.1:\d+$/);
      expect(env.core.status.get().nats).toMatchObject({
        state: 'running',
        reason: expect.stringContaining('reach it once Docker answers'),
      });
      const agent = env.core.platform.createAgent({ name: 'before' });
      const hook = await env.core.platform.createHookPublisher('wmoved');
      await proxy.restore();
      const gateway = await workerHostAddress();
      await expect.poll(() => String(env.core.platform.url), { timeout: 60_000 }).toContain(`nats://${gateway}:`);
      expect(env.core.status.get().nats).toEqual({
        state: 'running',
        reason: `nats-server on ${env.core.platform.url}.`,
      });
      const port = Number(new URL(String(env.core.platform.url).replace(/^nats:/, 'http:')).port);
      expect(listeners(port)).toEqual([`${gateway}:${port}`]);
      // Users issued before the move carry over; new runs get the gateway address.
      const creds = await env.core.platform.createRun(agent.id);
      expect(creds.natsUrl).toBe(env.core.platform.url);
      const client = await connectRun(creds);
      expect(okResult(await client.call('skill.list', {}))).toEqual({ skills: [] });
      await client.close();
      const nc = await connect({
        servers: String(env.core.platform.url),
        ...userAuth(hook.password ?? ''),
      });
      await nc.close();
    } finally {
      await env.cleanup();
      await proxy.close();
    }
  }, 300_000);
});
