import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type Docker from 'dockerode';
import { connect } from '@nats-io/transport-node';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { freePort } from '../../../test/helpers/free-port';
import { okResult, platformFixture } from '../../../test/helpers/platform-fixture';
import { connectRun } from '../../../test/helpers/run-client';
import { userAuth } from '../platform/nats/auth';
import { leafNodeConfig, type LeafNodeInput } from '../platform/nats/leaf-node';
import { LeafTrust } from './leaf-trust';

/** The one regular file of a ustar archive (what LeafTrust puts into the leaf's container). */
function untarOne(tar: Buffer): { name: string; data: Buffer } {
  const name = tar.subarray(0, 100).toString('utf8').replace(/\0.*$/s, '');
  const size = parseInt(tar.subarray(124, 136).toString('ascii'), 8);
  return { name, data: tar.subarray(512, 512 + size) };
}

/**
 * Revocations reaching a leaf node: Debian's nats-server as the leaf, run here as a local process
 * dialing core's leafnode port directly, and a stand-in for its container that does what Docker
 * does with the three calls LeafTrust makes (the archive written into the leaf's directory, the
 * signal sent from inside to the server, its log read). The whole thing on an engine: remote-leaf.docker.test.ts.
 */
describe('revocations reaching a leaf node', () => {
  let f: Awaited<ReturnType<typeof platformFixture>>;
  let dir: string;
  let leaf: ChildProcess | null = null;

  beforeEach(async () => {
    f = await platformFixture({ nats: { leafPort: 0 } });
    dir = mkdtempSync(join(tmpdir(), 'nexus-leaf-trust-'));
  });
  afterEach(async () => {
    leaf?.kill('SIGKILL');
    await f.cleanup();
    rmSync(dir, { recursive: true, force: true });
  });

  async function startLeaf() {
    const { creds, hubPort, trust } = await f.core.platform.leafCredentials('eng1');
    writeFileSync(join(dir, 'leaf.creds'), creds, { mode: 0o600 });
    const port = await freePort();
    const input: LeafNodeInput = {
      hubUrl: `nats://127.0.0.1:${hubPort}`,
      credentials: join(dir, 'leaf.creds'),
      listen: { host: '127.0.0.1', port },
      trust,
    };
    writeFileSync(join(dir, 'leaf.json'), leafNodeConfig(input));
    const child = spawn('nats-server', ['-c', join(dir, 'leaf.json')], { stdio: ['ignore', 'pipe', 'pipe'] });
    leaf = child;
    let log = '';
    child.stderr?.on('data', (d: Buffer) => (log += d.toString()));
    const container = {
      putArchive: (tar: Buffer, opts: { path: string }) => {
        const { name, data } = untarOne(tar);
        expect(`${opts.path}/${name}`).toBe('/tmp/nexus-leaf/leaf.json');
        writeFileSync(join(dir, 'leaf.json'), data);
        return Promise.resolve();
      },
      exec: (opts: { Cmd: string[] }) => {
        expect(opts.Cmd).toEqual(['sh', '-c', 'kill -HUP 1']);
        return Promise.resolve({ start: () => Promise.resolve(child.kill('SIGHUP')) });
      },
      logs: () => Promise.resolve(Buffer.from(log)),
    } as unknown as Docker.Container;
    return { url: `nats://127.0.0.1:${port}`, input, container };
  }

  /** A run connected at the leaf once the leaf's link to core carries its calls. */
  async function runAtLeaf(url: string) {
    const run = await f.core.platform.createRun(f.agent(`a-${Math.random().toString(36).slice(2, 8)}`).id);
    for (let i = 0; ; i++) {
      const client = await connectRun({ ...run, natsUrl: url }).catch(() => null);
      const reply = await client?.call('skill.list', {}).catch(() => null);
      if (client && reply) return { run, client, reply };
      await client?.close().catch(() => undefined);
      if (i > 100) throw new Error('the leaf never carried a call to core');
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  it('an ended run is dropped at the leaf and refused there once core has revoked it, other runs untouched', async () => {
    const { url, input, container } = await startLeaf();
    const trust = new LeafTrust({ trust: () => f.core.platform.natsTrust, log: f.core.log });
    f.core.platform.onTrustChanged(() => trust.changed());
    trust.started('eng1', container, input);
    const ended = await runAtLeaf(url);
    const kept = await runAtLeaf(url);
    expect(okResult(ended.reply)).toHaveProperty('skills');

    await f.core.platform.endRun(ended.run.runId, 'finished', 'done');
    const closed = await Promise.race([
      ended.client.nc.closed().then(() => 'closed'),
      new Promise((r) => setTimeout(() => r('still open after 10 s'), 10_000)),
    ]);
    expect(closed).toBe('closed');
    await expect(connect({ servers: url, ...userAuth(ended.run.password ?? ''), reconnect: false })).rejects.toThrow(
      /authoriz|revoked/i,
    );
    expect(okResult(await kept.client.call('skill.list', {}))).toHaveProperty('skills');
    await kept.client.close();
  });

  it('a revocation made while the leaf was starting reaches it when it has started', async () => {
    const { url, input, container } = await startLeaf();
    const trust = new LeafTrust({ trust: () => f.core.platform.natsTrust, log: f.core.log });
    const early = await runAtLeaf(url);
    // Ended after the leaf's config was rendered, before core knew the leaf had started.
    await f.core.platform.endRun(early.run.runId, 'finished', 'done');
    trust.started('eng1', container, input);
    await early.client.nc.closed();
    await expect(connect({ servers: url, ...userAuth(early.run.password ?? ''), reconnect: false })).rejects.toThrow(
      /authoriz|revoked/i,
    );
  });
});
