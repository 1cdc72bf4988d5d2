import { createAccount, createUser, type KeyPair } from '@nats-io/nkeys';
import { userAuth } from './nats/auth';
import { userJwt } from './nats/jwt';
import { join } from 'node:path';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { operatorContext } from '../handlers';
import { okResult, platformFixture } from '../../../test/helpers/platform-fixture';

type Fixture = Awaited<ReturnType<typeof platformFixture>>;
const op = operatorContext('internal');

/** The next error the server reports on this connection (permission violations arrive as status errors). */
async function nextServerError(nc: NatsConnection): Promise<Error> {
  for await (const s of nc.status()) if (s.type === 'error') return s.error;
  throw new Error('connection closed without an error');
}

const hookConnection = (c: { natsUrl: string; user?: string | null; password?: string | null }) =>
  connect({ servers: c.natsUrl, ...userAuth(c.password ?? ''), reconnect: false });

describe('identity and permissions in NATS', () => {
  let f: Fixture;
  beforeEach(async () => {
    f = await platformFixture();
  });
  afterEach(async () => f.cleanup());

  it("refuses a run publishing on another run's request subject", async () => {
    const alice = await f.run(f.agent('alice'));
    const bob = await f.run(f.agent('bob'));
    const error = nextServerError(alice.client.nc);
    alice.client.nc.publish(
      bob.creds.subject,
      JSON.stringify({ tool: 'memory.propose', args: { content: 'from alice as bob' } }),
    );
    expect((await error).message).toMatch(/Permissions Violation for Publish to "tools\.invoke\./);
    await expect(alice.client.call('memory.propose', { content: 'as bob' }, bob.creds.subject)).rejects.toThrow(
      /Permissions Violation for Publish/,
    );
    expect(f.core.review.memories.pending()).toEqual([]);
  });

  it("refuses a run subscribing to another run's inbox", async () => {
    const alice = await f.run(f.agent('alice'));
    const bob = await f.run(f.agent('bob'));
    const sub = alice.client.nc.subscribe(`${bob.creds.inboxPrefix}.>`);
    const closed = await sub.closed;
    expect(String(closed)).toMatch(/Permissions Violation for Subscription to "_INBOX\./);
  });

  it('refuses a run subscribing to the request subjects (it cannot read other runs calls)', async () => {
    const alice = await f.run(f.agent('alice'));
    const sub = alice.client.nc.subscribe('tools.invoke.*');
    expect(String(await sub.closed)).toMatch(/Permissions Violation for Subscription/);
  });

  it('refuses a connection with a made-up user or a wrong password', async () => {
    const { creds } = await f.run(f.agent('alice'));
    await expect(
      connect({ servers: creds.natsUrl, user: creds.user ?? '', pass: 'wrong-password', reconnect: false }),
    ).rejects.toThrow(/Authorization/i);
    await expect(connect({ servers: creds.natsUrl, ...userAuth('not-a-jwt'), reconnect: false })).rejects.toThrow(
      /Authorization/i,
    );
    await expect(connect({ servers: creds.natsUrl, reconnect: false })).rejects.toThrow(/Authorization/i);
  });

  it('refuses a user JWT of another account, one signed by an unknown key, and one whose permissions were edited', async () => {
    const { creds } = await f.run(f.agent('alice'));
    const [, body] = (creds.password ?? '').split('.');
    const claims = JSON.parse(Buffer.from(body ?? '', 'base64url').toString()) as {
      nats: { issuer_account: string; pub: unknown };
    };
    const grant = { publish: { allow: ['>'] }, subscribe: { allow: ['>'] } };
    const forge = (signer: KeyPair, account: string): string =>
      userJwt(signer, account, {
        user: createUser().getPublicKey(),
        name: 'forged',
        pub: grant.publish,
        sub: grant.subscribe,
        bearer: true,
      });
    const otherAccount = createAccount();
    // Another account (its own key signs): no server trusting Nexus's operator knows it.
    const ofAnother = forge(otherAccount, otherAccount.getPublicKey());
    // Nexus's account named as issuer, but signed by a key that is not its signing key.
    const unknownSigner = forge(createAccount(), claims.nats.issuer_account);
    // The run's own JWT with `pub: >` put in: its signature no longer matches.
    const [head, , sig] = (creds.password ?? '').split('.');
    const edited = [
      head,
      Buffer.from(JSON.stringify({ ...claims, nats: { ...claims.nats, pub: grant.publish } })).toString('base64url'),
      sig,
    ].join('.');
    for (const jwt of [ofAnother, unknownSigner, edited])
      await expect(connect({ servers: creds.natsUrl, ...userAuth(jwt), reconnect: false })).rejects.toThrow(
        /Authorization/i,
      );
  });

  it("ignores a payload that claims another agent's identity", async () => {
    const alice = f.agent('alice');
    const bob = f.agent('bob');
    const { client, creds } = await f.run(alice);
    const bobRun = await f.core.platform.createRun(bob.id);
    const reply = await client.call('memory.propose', { content: 'I am bob', scope: 'private' });
    expect(reply).toHaveProperty('result');
    // Extra identity fields in the request are not part of the protocol: refused, and nothing is written as bob.
    const msg = await client.nc.request(
      creds.subject,
      JSON.stringify({ tool: 'memory.propose', args: { content: 'x', agentId: bob.id, runId: bobRun.runId } }),
    );
    expect(msg.json()).toMatchObject({ error: { code: 'bad_request' } });
    const msg2 = await client.nc.request(
      creds.subject,
      JSON.stringify({ tool: 'memory.propose', args: { content: 'y' }, runId: bobRun.runId, agentId: bob.id }),
    );
    expect(msg2.json()).toHaveProperty('result');
    const pending = f.core.review.memories.pending();
    expect(pending.map((m) => m.agentId)).toEqual([alice.id, alice.id]);
    expect(pending.map((m) => m.runId)).toEqual([creds.runId, creds.runId]);
  });

  it('denies a tool outside the allow-list with a typed error, and re-reads the agent on every call', async () => {
    const agent = f.agent('narrow', { tools: ['memory.search'] });
    const { client } = await f.run(agent);
    expect(okResult(await client.call('memory.search', { query: 'anything' }))).toEqual({ memories: [] });
    const denied = await client.call('board.comment', { body: 'hi' });
    expect(denied).toMatchObject({
      error: { code: 'forbidden', message: expect.stringContaining('allow-list') },
    });

    f.core.platform.agents.setTools(agent.id, ['board.comment']);
    expect(await client.call('board.comment', { body: 'hi' })).toHaveProperty('result');
    expect(await client.call('memory.search', { query: 'x' })).toMatchObject({
      error: { code: 'forbidden' },
    });
    expect(
      f.core.audit
        .recent(10)
        .some((a) => a.transport === 'nats' && a.operation === 'tool:memory.search' && a.outcome === 'forbidden'),
    ).toBe(true);
  });

  it('applies a permission revoked or a run ended by another process on the very next call', async () => {
    const agent = f.agent('watched');
    const { client, creds } = await f.run(agent);
    expect(await client.call('memory.propose', { content: 'first' })).toHaveProperty('result');
    // Another connection to the same database file, as another process holding it would write.
    const other = new Database(join(f.dataDir, 'nexus.db'));
    try {
      other.prepare('UPDATE agents SET permissions = ? WHERE id = ?').run('["board.write"]', agent.id);
      expect(await client.call('memory.propose', { content: 'second' })).toMatchObject({
        error: { code: 'forbidden', message: expect.stringContaining('memory.write') },
      });
      expect(await client.call('memory.search', { query: 'first' })).toHaveProperty('result');
      other.prepare("UPDATE runs SET status = 'failed' WHERE id = ?").run(creds.runId);
      expect(await client.call('memory.search', { query: 'first' })).toMatchObject({ error: { code: 'forbidden' } });
    } finally {
      other.close();
    }
  });

  it("never returns another agent's private memories or any pending ones from memory.search", async () => {
    const alice = f.agent('alice', { project: 'apollo' });
    const bob = f.agent('bob', { project: 'apollo' });
    const carol = f.agent('carol', { project: 'gemini' });
    const a = await f.run(alice);
    const b = await f.run(bob);
    const c = await f.run(carol);
    const approve = async (reply: Awaited<ReturnType<typeof a.client.call>>): Promise<string> => {
      const id = String(okResult(reply).id);
      await f.core.dispatcher.call('review.approveMemory', { id }, op);
      return id;
    };
    const alicePrivate = await approve(
      await a.client.call('memory.propose', { content: 'kumquat alice private', scope: 'private' }),
    );
    const apolloProject = await approve(
      await a.client.call('memory.propose', { content: 'kumquat apollo project', scope: 'project' }),
    );
    const global = await approve(await c.client.call('memory.propose', { content: 'kumquat global', scope: 'global' }));
    const geminiProject = await approve(
      await c.client.call('memory.propose', { content: 'kumquat gemini project', scope: 'project' }),
    );
    await b.client.call('memory.propose', { content: 'kumquat bob pending', scope: 'global' });
    const rejected = String(
      okResult(await b.client.call('memory.propose', { content: 'kumquat rejected', scope: 'global' })).id,
    );
    await f.core.dispatcher.call('review.rejectMemory', { id: rejected }, op);

    const ids = async (client: typeof a.client): Promise<string[]> =>
      (okResult(await client.call('memory.search', { query: 'kumquat', limit: 50 })).memories as { id: string }[])
        .map((m) => m.id)
        .sort();
    expect(await ids(a.client)).toEqual([alicePrivate, apolloProject, global].sort());
    expect(await ids(b.client)).toEqual([apolloProject, global].sort());
    expect(await ids(c.client)).toEqual([global, geminiProject].sort());
  });

  it('drops a run connection when the run ends and refuses its credentials afterwards', async () => {
    const { client, creds } = await f.run(f.agent('short'));
    expect(await client.call('skill.list', {})).toHaveProperty('result');
    await f.core.platform.endRun(creds.runId, 'finished', 'done');
    await client.nc.closed();
    await expect(
      connect({ servers: creds.natsUrl, ...userAuth(creds.password ?? ''), reconnect: false }),
    ).rejects.toThrow(/Authorization/i);
    expect(f.core.platform.runs.get(creds.runId)?.status).toBe('finished');
  });

  it('delivers hook events with the workspace id taken from the subject, and hook users can only publish their own', async () => {
    const got: { workspaceId: string; event: unknown }[] = [];
    f.core.platform.onHookEvent((e) => got.push(e));
    const ws1 = await f.core.platform.createHookPublisher('ws1');
    const ws2 = await f.core.platform.createHookPublisher('ws2');
    const nc = await hookConnection(ws1);
    try {
      nc.publish(ws1.subject, JSON.stringify({ hook_event_name: 'Stop', workspaceId: 'ws2' }));
      await nc.flush();
      const error = nextServerError(nc);
      nc.publish(ws2.subject, JSON.stringify({ hook_event_name: 'Stop' }));
      expect((await error).message).toMatch(/Permissions Violation for Publish/);
      const sub = nc.subscribe('nexus.hooks.*');
      expect(String(await sub.closed)).toMatch(/Permissions Violation for Subscription/);
      await expect.poll(() => got.length).toBe(1);
      expect(got[0]).toEqual({ workspaceId: 'ws1', event: { hook_event_name: 'Stop', workspaceId: 'ws2' } });
    } finally {
      await nc.close().catch(() => undefined);
    }
  });

  it('lets a hook user wait on its own permission replies but never answer them or read another workspace', async () => {
    const ws1 = await f.core.platform.createHookPublisher('ws1');
    const nc = await hookConnection(ws1);
    try {
      const own = nc.subscribe('nexus.permission-replies.ws1.abc');
      await nc.flush();
      expect(own.isClosed()).toBe(false);
      const error = nextServerError(nc);
      nc.publish('nexus.permission-replies.ws1.abc', JSON.stringify({ behavior: 'allow' }));
      expect((await error).message).toMatch(/Permissions Violation for Publish to "nexus\.permission-replies/);
      const other = nc.subscribe('nexus.permission-replies.ws2.>');
      expect(String(await other.closed)).toMatch(/Permissions Violation for Subscription/);
    } finally {
      await nc.close().catch(() => undefined);
    }
  });
});
