import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createAccount, createUser } from '@nats-io/nkeys';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { okResult, platformFixture } from '../../../../test/helpers/platform-fixture';
import { connectRun } from '../../../../test/helpers/run-client';
import { userAuth } from './auth';
import { credsFile, userJwt } from './jwt';
import { leafNodeConfig } from './leaf-node';
import { freePort } from '../../../../test/helpers/free-port';

type Fixture = Awaited<ReturnType<typeof platformFixture>>;

async function nextServerError(nc: NatsConnection): Promise<Error> {
  for await (const s of nc.status()) if (s.type === 'error') return s.error;
  throw new Error('connection closed without an error');
}

/**
 * A remote engine's leaf nats-server, run here as a local process on loopback and dialing core's
 * leafnode port directly (on a real engine it dials through the engine's SSH remote forward).
 */
describe('a leaf node for a remote engine', () => {
  let f: Fixture;
  let dir: string;
  const leaves: ChildProcess[] = [];

  beforeEach(async () => {
    f = await platformFixture({ nats: { leafPort: 0 } });
    dir = mkdtempSync(join(tmpdir(), 'nexus-leaf-'));
  });
  afterEach(async () => {
    for (const l of leaves.splice(0)) l.kill('SIGKILL');
    await f.cleanup();
    rmSync(dir, { recursive: true, force: true });
  });

  /** Starts a leaf with this creds file content; resolves its url, its process and its output so far. */
  async function startLeaf(name: string, creds: string) {
    const { hubPort, trust } = await f.core.platform.leafCredentials('probe-only');
    await f.core.platform.removeLeaf('probe-only');
    const credentials = join(dir, `${name}.creds`);
    writeFileSync(credentials, creds, { mode: 0o600 });
    const port = await freePort();
    const config = join(dir, `${name}.conf`);
    const write = (t = trust): void =>
      writeFileSync(
        config,
        leafNodeConfig({
          hubUrl: `nats://127.0.0.1:${hubPort}`,
          credentials,
          listen: { host: '127.0.0.1', port },
          trust: t,
        }),
      );
    write();
    const child = spawn('nats-server', ['-c', config], { stdio: ['ignore', 'pipe', 'pipe'] });
    leaves.push(child);
    const out = { text: '' };
    child.stderr?.on('data', (d: Buffer) => (out.text += d.toString()));
    return { url: `nats://127.0.0.1:${port}`, child, out, write };
  }

  /** Until the leaf's link to core carries a call (a leaf just started has not dialed yet). */
  async function connectedCall(
    leaf: { url: string; out: { text: string } },
    creds: Awaited<ReturnType<typeof f.core.platform.createRun>>,
  ) {
    const url = leaf.url;
    const deadline = Date.now() + 10_000;
    for (;;) {
      try {
        const client = await connectRun({ ...creds, natsUrl: url });
        try {
          return { client, reply: await client.call('skill.list', {}) };
        } catch (e) {
          await client.close();
          throw e;
        }
      } catch (e) {
        if (Date.now() > deadline) throw new Error(`${String(e)}; the leaf said: ${leaf.out.text.slice(-1500)}`);
        await new Promise((r) => setTimeout(r, 100));
      }
    }
  }

  it('serves platform tools to a run connected at the leaf, which can act only as itself', async () => {
    const { creds } = await f.core.platform.leafCredentials('eng1');
    const leaf = await startLeaf('eng1', creds);
    const alice = await f.core.platform.createRun(f.agent('alice').id, f.core.platform.createTask({ title: 'a' }).id);
    const bob = await f.core.platform.createRun(f.agent('bob').id);
    const { client, reply } = await connectedCall(leaf, alice);
    expect(okResult(reply)).toHaveProperty('skills');
    expect(okResult(await client.call('board.comment', { body: 'from the leaf' }))).toBeTruthy();

    // Publishing as bob and reading bob's inbox are refused by the leaf, as core's server refuses them.
    const error = nextServerError(client.nc);
    client.nc.publish(bob.subject, JSON.stringify({ tool: 'memory.propose', args: { content: 'as bob' } }));
    expect((await error).message).toMatch(/Permissions Violation for Publish to "tools\.invoke\./);
    const sub = client.nc.subscribe(`${bob.inboxPrefix}.>`);
    expect(String(await sub.closed)).toMatch(/Permissions Violation for Subscription/);
    expect(f.core.review.memories.pending()).toEqual([]);
    await client.close();
  });

  it('renders a leaf that listens on one address only and dials core with its credential', async () => {
    const { hubPort, trust } = await f.core.platform.leafCredentials('eng1');
    const input = { hubUrl: `nats://127.0.0.1:${hubPort}`, credentials: '/run/nexus/leaf.creds', trust };
    const config = JSON.parse(leafNodeConfig({ ...input, listen: { host: '10.201.0.1', port: 4222 } })) as Record<
      string,
      unknown
    >;
    expect(config).toMatchObject({
      host: '10.201.0.1',
      port: 4222,
      operator: trust.operatorJwt,
      resolver: 'MEMORY',
      resolver_preload: { [trust.account]: trust.accountJwt },
      leafnodes: { remotes: [{ url: input.hubUrl, credentials: input.credentials, account: trust.account }] },
    });
    // No secret in it: the seed stays in the creds file.
    expect(JSON.stringify(config)).not.toMatch(/SU[A-Z2-7]{50,}/);
    for (const host of ['0.0.0.0', '::'])
      expect(() => leafNodeConfig({ ...input, listen: { host, port: 4222 } })).toThrow(/one address/);
  });

  it('refuses at the leaf a user JWT of another account or with edited permissions', async () => {
    const { creds } = await f.core.platform.leafCredentials('eng1');
    const leaf = await startLeaf('eng1', creds);
    const alice = await f.core.platform.createRun(f.agent('alice').id);
    (await connectedCall(leaf, alice)).client.nc.close().catch(() => undefined);
    const other = createAccount();
    const grant = { allow: ['>'] };
    const forged = userJwt(other, other.getPublicKey(), {
      user: createUser().getPublicKey(),
      name: 'forged',
      pub: grant,
      sub: grant,
      bearer: true,
    });
    const [head, body, sig] = (alice.password ?? '').split('.');
    const claims = JSON.parse(Buffer.from(body ?? '', 'base64url').toString()) as { nats: Record<string, unknown> };
    const edited = [
      head,
      Buffer.from(JSON.stringify({ ...claims, nats: { ...claims.nats, pub: grant } })).toString('base64url'),
      sig,
    ].join('.');
    for (const jwt of [forged, edited])
      await expect(connect({ servers: leaf.url, ...userAuth(jwt), reconnect: false })).rejects.toThrow(
        /Authorization/i,
      );
  });

  it('carries nothing to core from a leaf whose credential core did not make', async () => {
    const other = createAccount();
    const u = createUser();
    const forged = credsFile(
      userJwt(other, other.getPublicKey(), { user: u.getPublicKey(), name: 'leaf-x', pub: {}, sub: {} }),
      u.getSeed(),
    );
    const leaf = await startLeaf('forged', forged);
    const deadline = Date.now() + 10_000;
    while (!/authoriz/i.test(leaf.out.text) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    expect(leaf.out.text).toMatch(/authoriz/i);
    // The run's own JWT is valid at the leaf (same operator), but nobody there answers it.
    const alice = await f.core.platform.createRun(f.agent('alice').id);
    const client = await connectRun({ ...alice, natsUrl: leaf.url });
    await expect(client.call('skill.list', {})).rejects.toThrow();
    await client.close();
  });

  it('refuses an ended run at the leaf on the next call, and drops it once the leaf reloads the revocations', async () => {
    const { creds } = await f.core.platform.leafCredentials('eng1');
    const leaf = await startLeaf('eng1', creds);
    const run = await f.core.platform.createRun(f.agent('short').id);
    const { client } = await connectedCall(leaf, run);
    await f.core.platform.endRun(run.runId, 'finished', 'done');
    // The leaf has not heard of the revocation: the connection stays, core refuses the call.
    expect(await client.call('skill.list', {})).toMatchObject({ error: { code: 'forbidden' } });
    const trust = f.core.platform.natsTrust;
    if (!trust) throw new Error('no NATS trust');
    leaf.write(trust);
    leaf.child.kill('SIGHUP');
    await client.nc.closed();
    await expect(connect({ servers: leaf.url, ...userAuth(run.password ?? ''), reconnect: false })).rejects.toThrow(
      /Authorization/i,
    );
  });

  it('keeps a leaf taken over (its credential, a config of its own) from reading requests or forging replies', async () => {
    const { creds, hubPort } = await f.core.platform.leafCredentials('eng1');
    const credentials = join(dir, 'taken.creds');
    writeFileSync(credentials, creds, { mode: 0o600 });
    const port = await freePort();
    const config = join(dir, 'taken.conf');
    // No operator, no users: anyone at this leaf may do anything the hub lets the leaf do.
    writeFileSync(
      config,
      JSON.stringify({
        host: '127.0.0.1',
        port,
        leafnodes: { remotes: [{ url: `nats://127.0.0.1:${hubPort}`, credentials }] },
      }),
    );
    const child = spawn('nats-server', ['-c', config], { stdio: 'ignore' });
    leaves.push(child);
    const url = `nats://127.0.0.1:${port}`;
    const bob = await f.run(f.agent('bob'));
    const spy = await (async () => {
      for (let i = 0; ; i++)
        try {
          return await connect({ servers: url, reconnect: false });
        } catch (e) {
          if (i > 100) throw e;
          await new Promise((r) => setTimeout(r, 50));
        }
    })();
    const seen: string[] = [];
    spy.subscribe('tools.invoke.*', { callback: (_e, m) => void seen.push(m.subject) });
    spy.subscribe('nexus.>', { callback: (_e, m) => void seen.push(m.subject) });
    await spy.flush();
    // The leaf's link is up once its requests reach core (its own client has no run identity to check).
    const deadline = Date.now() + 10_000;
    for (;;) {
      const r = await spy
        .request(bob.creds.subject, JSON.stringify({ tool: 'skill.list' }), { timeout: 1_000 })
        .catch(() => null);
      if (r || Date.now() > deadline) break;
    }
    // Its own probes above reached its own subscription at the leaf: only what comes from core counts.
    seen.length = 0;
    const forged: string[] = [];
    bob.client.nc.subscribe(`${bob.creds.inboxPrefix}.forged`, { callback: (_e, m) => void forged.push(m.string()) });
    await bob.client.nc.flush();
    spy.publish(`${bob.creds.inboxPrefix}.forged`, 'not from core');
    await spy.flush();
    expect(okResult(await bob.client.call('skill.list', {}))).toHaveProperty('skills');
    // A checkpoint ask never crosses a leaf (its grant leaves the subjects out): nobody there reads it or can answer
    // it with a made-up commit; no responder, so core takes the exec (docs/sessions.md, "Review that talks back").
    expect(await f.core.platform.relayCheckpoint('w-elsewhere', '{}', 2000)).toBeNull();
    await new Promise((r) => setTimeout(r, 300));
    expect(forged).toEqual([]);
    expect(seen.filter((s) => s === bob.creds.subject || s.startsWith('nexus.'))).toEqual([]);
    await spy.close();
  });
});
