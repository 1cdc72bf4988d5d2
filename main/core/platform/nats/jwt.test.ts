import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createAccount, fromPublic } from '@nats-io/nkeys';
import { connect, credsAuthenticator } from '@nats-io/transport-node';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { renderNatsConfig } from '../nats-config';
import { userAuth } from './auth';
import { NatsIdentity } from './identity';
import { bearerUserKey, NkeySigner } from './nkey-codec';
import { freePort } from '../../../../test/helpers/free-port';

const grant = (name: string, pub: string[], sub: string[]) => ({
  user: name,
  permissions: { publish: { allow: pub }, subscribe: { allow: sub } },
});

/** Our own JWT encoder against Debian's nats-server (2.9.10): what it accepts, refuses and drops. */
describe('NATS user JWTs signed in process', () => {
  let dir: string;
  let server: ChildProcess | null = null;
  let url = '';
  let identity: NatsIdentity;
  const write = async (port: number): Promise<void> => {
    const { operatorJwt, account } = identity;
    const config = renderNatsConfig({
      host: '127.0.0.1',
      port,
      pidFile: join(dir, 'nats.pid'),
      operatorJwt,
      account,
      accountJwt: identity.accountJwt(),
    });
    writeFileSync(join(dir, 'nats.conf'), config);
  };

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'nexus-jwt-'));
    identity = NatsIdentity.open(dir);
    const port = await freePort();
    await write(port);
    url = `nats://127.0.0.1:${port}`;
    server = spawn('nats-server', ['-c', join(dir, 'nats.conf')], { stdio: 'ignore' });
    const core = identity.issue(grant('core', ['>'], ['>']), null);
    for (let i = 0; ; i++)
      try {
        await (await connect({ servers: url, ...userAuth(core.password), reconnect: false })).close();
        break;
      } catch (e) {
        if (i > 200) throw e;
        await new Promise((r) => setTimeout(r, 25));
      }
  });
  afterEach(() => {
    server?.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  });

  it('keeps the trust chain in the data dir, readable only by its owner, and reuses it', () => {
    expect(identity.fresh).toBe(true);
    expect(statSync(join(dir, 'identity.json')).mode & 0o777).toBe(0o600);
    const again = NatsIdentity.open(dir);
    expect(again.fresh).toBe(false);
    expect(again.operatorJwt).toBe(identity.operatorJwt);
    expect(again.account).toBe(identity.account);
  });

  it('encodes nkeys and signs as @nats-io/nkeys does, through node:crypto', () => {
    const kp = createAccount();
    const seed = new TextDecoder().decode(kp.getSeed());
    const signer = new NkeySigner(seed);
    expect(signer.getPublicKey()).toBe(kp.getPublicKey());
    const data = new TextEncoder().encode('header.payload');
    expect(kp.verify(data, signer.sign(data))).toBe(true);
    expect(Buffer.from(signer.sign(data))).toEqual(Buffer.from(kp.sign(data)));
    const user = bearerUserKey();
    expect(() => fromPublic(user)).not.toThrow();
    expect(user).toMatch(/^U[A-Z2-7]{55}$/);
  });

  it('lets a user publish and subscribe exactly its allow-lists', async () => {
    const core = identity.issue(grant('core', ['>'], ['>']), null);
    const run = identity.issue(grant('run-a', ['tools.invoke.a'], ['_INBOX.a.>']), 60_000);
    const nc = await connect({ servers: url, ...userAuth(core.password) });
    nc.subscribe('tools.invoke.*', { callback: (_e, m) => void m.respond(`to ${m.subject}`) });
    await nc.flush();
    const rc = await connect({ servers: url, ...userAuth(run.password), inboxPrefix: '_INBOX.a', reconnect: false });
    expect((await rc.request('tools.invoke.a', '')).string()).toBe('to tools.invoke.a');
    await expect(rc.request('tools.invoke.b', '', { timeout: 500 })).rejects.toThrow(/Permissions Violation/);
    await rc.close();
    await nc.close();
  });

  it('accepts a creds file (JWT + seed) whose user signs the nonce', async () => {
    const { creds } = identity.issueCreds(grant('leaf-x', ['>'], ['>']), null);
    const nc = await connect({ servers: url, authenticator: credsAuthenticator(new TextEncoder().encode(creds)) });
    await nc.flush();
    await nc.close();
  });

  it('drops a live connection at its JWT expiry (2.9.10 does, measured: within ~10 ms of exp)', async () => {
    // exp is in whole seconds: 1.5 s from now lands 1–2 s away.
    const run = identity.issue(grant('run-b', ['tools.invoke.b'], ['_INBOX.b.>']), 1_500);
    const rc = await connect({ servers: url, ...userAuth(run.password), reconnect: false });
    const closed = await rc.closed();
    expect(String(closed)).toMatch(/expired/i);
    expect(Date.now() / 1000).toBeGreaterThanOrEqual((run.exp ?? 0) - 0.05);
  });

  it('drops a live connection and refuses the JWT once a reload brings its revocation (2.9.10 does)', async () => {
    const run = identity.issue(grant('run-c', ['tools.invoke.c'], ['_INBOX.c.>']), 60_000);
    const rc = await connect({ servers: url, ...userAuth(run.password), reconnect: false });
    identity.revoke([run]);
    await write(Number(new URL(url.replace('nats:', 'http:')).port));
    server?.kill('SIGHUP');
    expect(String(await rc.closed())).toMatch(/revoked/i);
    await expect(connect({ servers: url, ...userAuth(run.password), reconnect: false })).rejects.toThrow(
      /Authorization/i,
    );
  });
});
