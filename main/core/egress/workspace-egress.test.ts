import http, { type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type Docker from 'dockerode';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../../../test/helpers/temp-dir';
import { createLogger } from '../log';
import { Redactor } from '../redact';
import { openStore, type Db } from '../store';
import { EgressStore } from './egress-store';
import { WorkspaceEgress, type EgressWorkspace, type RemoteEgressRoute } from './workspace-egress';

/** An engine as the egress rule sees it: its confined network is there (internal); nothing else is asked. */
const engineDocker = (): Docker =>
  ({ getNetwork: () => ({ inspect: () => Promise.resolve({ Internal: true }) }) }) as unknown as Docker;
/** The local engine, whose confined network lists no container: no source address is a workspace's. */
const localDocker = (): Docker =>
  ({
    getNetwork: () => ({ inspect: () => Promise.resolve({ Internal: true, Containers: {} }) }),
  }) as unknown as Docker;

const WORKSPACES: EgressWorkspace[] = [
  { id: 'wa', name: 'alpha', repoUrl: '/srv/a', engine: 'e1' },
  { id: 'wb', name: 'beta', repoUrl: '/srv/b', engine: 'e1' },
  { id: 'wl', name: 'local-one', repoUrl: '/srv/l', engine: 'local' },
];
const RELAY = { host: '10.201.0.1', port: 4227 };

function egressWith(db: Db, dir: string, opts: { network?: string; route?: RemoteEgressRoute | null } = {}) {
  const egress = new WorkspaceEgress({
    store: new EgressStore(db),
    docker: localDocker(),
    network: opts.network ?? 'nexus',
    registries: [],
    log: createLogger({ stderr: false, redactor: new Redactor() }),
    portFile: join(dir, 'egress-port'),
    workspace: (ref) => {
      const w = WORKSPACES.find((x) => x.id === ref || x.name === ref);
      if (!w) throw new Error(`no workspace ${ref}`);
      return w;
    },
    workspaceOfContainer: () => null,
    recipeHosts: () => [],
  });
  if (opts.route !== null)
    egress.routeRemote(
      opts.route ?? {
        refusal: (engine) => (engine === 'tls1' ? 'a TLS engine has no way back' : null),
        docker: engineDocker,
        relay: () => Promise.resolve(RELAY),
        up: () => Promise.resolve(),
      },
    );
  return egress;
}

/** A request through the proxy: an absolute-URL GET or a CONNECT, with the credential given (none: no header). */
function viaProxy(
  proxy: { host: string; port: number },
  how: { method: 'GET' | 'CONNECT'; target: string; credential?: string },
): Promise<{ status: number; body: string; authenticate?: string }> {
  const headers: Record<string, string> = {};
  if (how.credential !== undefined)
    headers['proxy-authorization'] = `Basic ${Buffer.from(`nexus:${how.credential}`).toString('base64')}`;
  return new Promise((resolve, reject) => {
    const req = http.request({
      host: proxy.host,
      port: proxy.port,
      method: how.method,
      path: how.method === 'GET' ? `http://${how.target}/` : how.target,
      headers,
      agent: false,
    });
    const answer = (res: http.IncomingMessage): void => {
      let body = '';
      res.on('data', (d: Buffer) => (body += d.toString()));
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, body: body.trim(), authenticate: res.headers['proxy-authenticate'] }),
      );
    };
    req.on('response', answer);
    req.on('connect', (res, socket, head) => {
      if (res.statusCode !== 200) {
        let body = head.toString();
        socket.on('data', (d: Buffer) => (body += d.toString()));
        socket.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            body: body.trim(),
            authenticate: res.headers['proxy-authenticate'],
          }),
        );
        return;
      }
      socket.write(`GET / HTTP/1.1\r\nhost: ${how.target}\r\nconnection: close\r\n\r\n`);
      let raw = '';
      socket.on('data', (d: Buffer) => (raw += d.toString()));
      socket.on('end', () => resolve({ status: 200, body: raw.split('\r\n\r\n')[1] ?? '' }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('egress of confined workspaces on remote engines', () => {
  const dir = tempDir('nexus-egress-');
  let db: Db;
  let upstream: Server;
  let allowed = '';
  let other = '';
  let egress: WorkspaceEgress;
  let proxy: { host: string; port: number };

  beforeAll(async () => {
    db = openStore(join(dir.path, 'n.db'));
    for (const w of WORKSPACES)
      db.prepare(
        "INSERT INTO workspaces (id, name, repo_url, status, volume, created_at, updated_at) VALUES (?, ?, ?, 'running', ?, 'now', 'now')",
      ).run(w.id, w.name, w.repoUrl, `v-${w.id}`);
    upstream = http.createServer((_q, s) => s.end('out there'));
    await new Promise<void>((r) => upstream.listen(0, '127.0.0.1', () => r()));
    const port = (upstream.address() as AddressInfo).port;
    allowed = `127.0.0.1:${port}`;
    // The same server under another address spelling no list names: what a refused target is here.
    other = `127.0.0.2:${port}`;
    egress = egressWith(db, dir.path);
    await egress.listen('127.0.0.1');
    proxy = egress.listenerAddress() ?? { host: '', port: 0 };
    for (const w of WORKSPACES) egress.choose(w.id, true);
    egress.setHosts('alpha', [allowed]);
  });

  afterAll(async () => {
    await egress.dispose();
    await new Promise<void>((r) => upstream.close(() => r()));
    db.close();
    dir.remove();
  });

  it('refuses a confined create only where it cannot be honoured: host networking, a TLS engine, no route', () => {
    const open = egressWith(db, dir.path);
    expect(() => open.checkCreate(true, 'local')).not.toThrow();
    expect(() => open.checkCreate(true, 'e1')).not.toThrow();
    expect(() => open.checkCreate(true, 'tls1')).toThrow(/cannot confine a workspace there: a TLS engine/);
    expect(() => open.checkCreate(false, 'tls1')).not.toThrow();
    expect(() => egressWith(db, dir.path, { route: null }).checkCreate(true, 'e1')).toThrow(
      /remote engines are not joined/,
    );
    const host = egressWith(db, dir.path, { network: 'host' });
    expect(() => host.checkCreate(true, 'local')).toThrow(/cannot be confined/);
    expect(() => host.checkCreate(true, 'e1')).toThrow(/cannot be confined/);
  });

  it('hands a remote workspace its engine’s relay with a credential of its own; a local one the proxy as before', async () => {
    const env = (await egress.containerOf('wa'))?.env ?? [];
    expect((await egress.containerOf('wa'))?.network).toBe('nexus-confined');
    const proxyUrl = new URL(env.find((e) => e.startsWith('HTTP_PROXY='))?.slice('HTTP_PROXY='.length) ?? '');
    expect(`${proxyUrl.hostname}:${proxyUrl.port}`).toBe(`${RELAY.host}:${RELAY.port}`);
    expect(proxyUrl.password).toMatch(/^nxe_[A-Za-z0-9_-]{43}$/);
    expect(env).toContain(`NO_PROXY=${RELAY.host},localhost,127.0.0.1`);
    expect(env).toContain(`GIT_CONFIG_VALUE_0=${proxyUrl.href.replace(/\/$/, '')}`);
    const local = (await egress.containerOf('wl'))?.env ?? [];
    expect(local).toContain(`HTTP_PROXY=http://${proxy.host}:${proxy.port}`);
    // The credential is in no log line or result: the redactor masks it in a URL.
    expect(new Redactor().text(proxyUrl.href)).not.toContain(proxyUrl.password);
  });

  it('lets a remote workspace out by its credential to its own list only, and turns away any other credential', async () => {
    const credentialOf = async (id: string): Promise<string> => {
      const env = (await egress.containerOf(id))?.env ?? [];
      return new URL(env.find((e) => e.startsWith('HTTP_PROXY='))?.slice('HTTP_PROXY='.length) ?? '').password;
    };
    const a = await credentialOf('wa');
    const b = await credentialOf('wb');
    expect(await viaProxy(proxy, { method: 'GET', target: allowed, credential: a })).toMatchObject({
      status: 200,
      body: 'out there',
    });
    expect(await viaProxy(proxy, { method: 'CONNECT', target: allowed, credential: a })).toMatchObject({
      status: 200,
      body: 'out there',
    });
    const refused = await viaProxy(proxy, { method: 'CONNECT', target: other, credential: a });
    expect(refused.status).toBe(403);
    expect(refused.body).toMatch(`Refused by Nexus egress: ${other} is not on the allow-list of workspace alpha`);
    // Another workspace's credential is that workspace, with its list (not alpha's), wherever it comes from.
    const asB = await viaProxy(proxy, { method: 'GET', target: allowed, credential: b });
    expect(asB.status).toBe(403);
    expect(asB.body).toMatch(`${allowed} is not on the allow-list of workspace beta`);
    expect(egress.refusals('alpha', 10).refusals.map((r) => `${r.method} ${r.host}:${r.port}`)).toEqual([
      `CONNECT ${other}`,
    ]);
    expect(egress.refusals('beta', 10).refusals.map((r) => `${r.method} ${r.host}:${r.port}`)).toEqual([
      `GET ${allowed}`,
    ]);
    // No credential from an address that is no confined workspace's, or a wrong one: 407, asked for Basic.
    for (const credential of [undefined, `${a.slice(0, -2)}${a.endsWith('xx') ? 'yy' : 'xx'}`, 'nxe_guess', ''])
      for (const method of ['GET', 'CONNECT'] as const) {
        const r = await viaProxy(proxy, {
          method,
          target: allowed,
          ...(credential === undefined ? {} : { credential }),
        });
        expect(r.status).toBe(407);
        expect(r.authenticate).toBe('Basic realm="Nexus egress"');
        expect(r.body).toMatch(
          /^Refused by Nexus egress: (this address is not a confined|the proxy credential is not)/,
        );
      }
    // A container made again gets a new credential; the old one is worth nothing from then on.
    const again = await credentialOf('wa');
    expect((await viaProxy(proxy, { method: 'GET', target: allowed, credential: a })).status).toBe(407);
    expect((await viaProxy(proxy, { method: 'GET', target: allowed, credential: again })).status).toBe(200);
    // Revoked with the workspace.
    db.prepare("DELETE FROM workspaces WHERE id = 'wb'").run();
    expect((await viaProxy(proxy, { method: 'GET', target: allowed, credential: b })).status).toBe(407);
  });
});
