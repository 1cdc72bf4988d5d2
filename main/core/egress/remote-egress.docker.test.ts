import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { vaultCore } from '../../../test/helpers/core';
import { ensureTestWorkerImage, workspaceTestConfig } from '../../../test/helpers/docker';
import { serveGitRepo } from '../../../test/helpers/git-http-server';
import { engineEnforcesInternal, startOutside } from '../../../test/helpers/outside';
import { joinSecondEngine, startSecondEngine, type SecondEngine } from '../../../test/helpers/second-engine';
import { waitFor } from '../../../test/helpers/wait';
import type { OpInput, OpName } from '../../../shared/contract';
import { EGRESS_RELAY_PORT, GATEWAY_RELAY_PORT, LEAF_WORKER_PORT } from '../engines/engine-leaf';
import { operatorContext } from '../handlers';
import type { Core } from '..';

// Issue 40: a confined workspace on a remote (SSH) engine. Needs root: a second dockerd behind an sshd on 127.0.0.1
// (test/helpers/second-engine.ts) and the stand-in of the outside (a netns behind a veth, test/helpers/outside.ts).
const op = operatorContext('internal');
const run = promisify(execFile);
const REGISTRIES = ['registry.npmjs.org'];

/** What a worker's tools do with HTTP_PROXY, each request with its own proxy credential (null: none presented). */
interface Probe {
  name: string;
  method: 'GET' | 'CONNECT';
  target: string;
  /** Absent: the one in HTTP_PROXY (the workspace's own); null: no Proxy-Authorization. */
  credential?: string | null;
}
/** Straight connections (around the proxy) by name: `host:port`, and whether to send a request and keep the answer. */
const probes = (requests: Probe[], direct: Record<string, [string, boolean]>): string => `
const http = require('http'), net = require('net');
const proxy = new URL(process.env.HTTP_PROXY);
const basic = (c) => 'Basic ' + Buffer.from('nexus:' + c).toString('base64');
const auth = (c) =>
  c === null ? {} : { 'proxy-authorization': basic(c === undefined ? decodeURIComponent(proxy.password) : c) };
const ask = (p) => new Promise((done) => {
  const r = http.request({ host: proxy.hostname, port: proxy.port, method: p.method, agent: false,
    path: p.method === 'GET' ? 'http://' + p.target + '/' : p.target, headers: { host: p.target, ...auth(p.credential) } });
  const answered = (res, body) => done(res.statusCode + ' ' + body.trim());
  r.on('response', (res) => { let b = ''; res.on('data', (d) => (b += d)); res.on('end', () => answered(res, b)); });
  r.on('connect', (res, socket, head) => {
    if (res.statusCode !== 200) {
      let b = head.toString(); socket.on('data', (d) => (b += d)); socket.on('end', () => answered(res, b));
      return;
    }
    socket.write('GET / HTTP/1.1\\r\\nhost: ' + p.target + '\\r\\nconnection: close\\r\\n\\r\\n');
    let b = ''; socket.on('data', (d) => (b += d)); socket.on('end', () => done('200 ' + b.split('\\r\\n\\r\\n')[1]));
  });
  r.on('error', (e) => done('error ' + e.code)); r.end();
});
// A straight connection: 'connected'; when asked to speak, what answers first (an HTTP status line, NATS's INFO).
const straight = ([to, speak]) => new Promise((done) => {
  const [host, port] = to.split(':'); const s = net.connect({ host, port: Number(port), timeout: 3000 });
  let said = '';
  s.on('connect', () => {
    if (!speak) { s.destroy(); return done('connected'); }
    s.write('GET / HTTP/1.0\\r\\n\\r\\n');
    setTimeout(() => { s.destroy(); done(said ? said.split('\\r\\n')[0].slice(0, 12) : 'connected'); }, 1000);
  });
  s.on('data', (d) => (said += d));
  s.on('timeout', () => { s.destroy(); done('timeout'); });
  s.on('error', (e) => done('error ' + e.code));
});
(async () => {
  const out = {};
  for (const p of ${JSON.stringify(requests)}) out[p.name] = await ask(p);
  for (const [name, to] of Object.entries(${JSON.stringify(direct)})) out[name] = await straight(to);
  console.log(JSON.stringify(out));
})();
`;

describe('egress by allow-list on a remote engine over SSH', () => {
  const tag = randomBytes(3).toString('hex');
  const name = `regr-${tag}`;
  const other = `regr-other-${tag}`;
  const hits: string[] = [];
  let remote: SecondEngine | undefined;
  let env: Awaited<ReturnType<typeof vaultCore>> | undefined;
  let core: Core;
  let repo: Awaited<ReturnType<typeof serveGitRepo>> | undefined;
  let outside: ReturnType<typeof startOutside> | undefined;
  const allowed = '198.51.100.2:8080';
  const refused = '198.51.100.2:8081';
  const call = <K extends OpName>(o: K, input: OpInput<K>) => core.dispatcher.call(o, input, op);
  /** As the worker user in a container of the second engine (asynchronously: the proxy is this process's core). */
  const inWorker = async (containerId: string, ...cmd: string[]): Promise<string> =>
    (
      await run('docker', ['-H', `unix://${remote?.socket}`, 'exec', '-u', '1000:1000', containerId, ...cmd], {
        encoding: 'utf8',
        timeout: 90_000,
      })
    ).stdout;
  const proxyOf = async (containerId: string): Promise<URL> => {
    const inspect = await remote?.docker.getContainer(containerId).inspect();
    return new URL(inspect?.Config.Env.find((e) => e.startsWith('HTTPS_PROXY='))?.slice('HTTPS_PROXY='.length) ?? '');
  };

  beforeAll(async () => {
    await ensureTestWorkerImage();
    repo = await serveGitRepo(null);
    outside = startOutside(hits);
    remote = await startSecondEngine({ pool: '10.209.0.0/16' });
    // leafPort 0: the hub's leaf port, which each remote engine's leaf dials through its SSH link.
    env = await vaultCore({ ...workspaceTestConfig(), nats: { leafPort: 0 }, egress: { registries: REGISTRIES } });
    core = env.core;
    await joinSecondEngine(call, remote, 'far');
  }, 600_000);

  afterAll(async () => {
    try {
      outside?.stop();
      await Promise.race([
        Promise.all([name, other].map((w) => call('workspaces.delete', { workspace: w }).catch(() => undefined))),
        new Promise((r) => setTimeout(r, 20_000)),
      ]);
    } finally {
      await remote?.dispose();
      await env?.cleanup();
      await repo?.close();
    }
  }, 180_000);

  it('lets a confined workspace out through its engine’s relay with its own credential, only to its allow-list', async () => {
    // Two confined workspaces there: the clone itself goes through the relay (git's http.proxy, the git host listed).
    for (const w of [name, other])
      await call('workspaces.create', { name: w, repoUrl: repo?.url ?? '', egress: 'allow-list', engine: 'far' });
    await core.workspaces.idle();
    const [ws, ows] = await Promise.all([name, other].map((w) => call('workspaces.get', { workspace: w })));
    for (const w of [ws, ows]) expect(w?.status, w?.reason ?? '').toBe('running');
    const containerId = ws?.containerId ?? '';
    const otherId = ows?.containerId ?? '';
    expect(await inWorker(containerId, 'git', '-C', '/workspace', 'log', '--oneline')).toMatch(/update README\.md/);

    // On the engine's internal network only; the proxy is the leaf's relay on the workers' bridge gateway there.
    const inspect = await remote?.docker.getContainer(containerId).inspect();
    expect(Object.keys(inspect?.NetworkSettings.Networks ?? {})).toEqual(['nexus-confined']);
    expect((await remote?.docker.getNetwork('nexus-confined').inspect())?.Internal).toBe(true);
    const workers = (await remote?.docker.getNetwork('nexus').inspect()) as { IPAM: { Config: { Gateway: string }[] } };
    const relayHost = workers.IPAM.Config[0]?.Gateway ?? '';
    expect(relayHost).toMatch(/^10\.209\./);
    const own = await proxyOf(containerId);
    expect(`${own.hostname}:${own.port}`).toBe(`${relayHost}:${EGRESS_RELAY_PORT}`);
    expect(own.password).toMatch(/^nxe_[A-Za-z0-9_-]{43}$/);
    const theirs = (await proxyOf(otherId)).password;
    expect(theirs).not.toBe(own.password);

    await call('egress.setHosts', { workspace: name, hosts: [allowed] });
    const wrong = `nxe_${randomBytes(32).toString('base64url')}`;
    const probe = async (): Promise<Record<string, string>> =>
      JSON.parse(
        await inWorker(
          containerId,
          'node',
          '-e',
          probes(
            [
              { name: 'get', method: 'GET', target: allowed },
              { name: 'tunnel', method: 'CONNECT', target: allowed },
              { name: 'refusedGet', method: 'GET', target: refused },
              { name: 'refusedTunnel', method: 'CONNECT', target: refused },
              { name: 'none', method: 'GET', target: allowed, credential: null },
              { name: 'noneTunnel', method: 'CONNECT', target: allowed, credential: null },
              { name: 'wrong', method: 'CONNECT', target: allowed, credential: wrong },
              { name: 'asOther', method: 'GET', target: allowed, credential: theirs },
            ],
            {
              gateway: [`${relayHost}:${GATEWAY_RELAY_PORT}`, true],
              nats: [`${relayHost}:${LEAF_WORKER_PORT}`, true],
              outside: [allowed, false],
            },
          ),
        ),
      ) as Record<string, string>;
    const seen = await probe();
    expect(seen.get).toBe('200 allowed');
    expect(seen.tunnel).toBe('200 allowed');
    const notListed = `${refused} is not on the allow-list of workspace ${name}`;
    expect(seen.refusedGet).toMatch(`403 Refused by Nexus egress: ${notListed}`);
    expect(seen.refusedTunnel).toMatch(`403 Refused by Nexus egress: ${notListed}`);
    // No credential (the address the relay shows is the host's, no workspace's), or one that is nobody's: 407.
    expect(seen.none).toMatch(/^407 Refused by Nexus egress: this address is not a confined Nexus workspace/);
    expect(seen.noneTunnel).toMatch(/^407 Refused by Nexus egress: this address is not a confined Nexus workspace/);
    expect(seen.wrong).toMatch(/^407 Refused by Nexus egress: the proxy credential is not/);
    // The other workspace's credential is that workspace, with its list (the defaults), not this one's.
    expect(seen.asOther).toMatch(
      `403 Refused by Nexus egress: ${allowed} is not on the allow-list of workspace ${other}`,
    );
    await waitFor(() => hits.length >= 2, 'the allowed server to log its two requests');
    expect(hits).toEqual(['allowed GET /', 'allowed GET /']);
    // The model gateway (an HTTP answer) and NATS (its INFO) through the leaf's relays, straight (NO_PROXY).
    expect(seen.gateway).toMatch(/^HTTP\/1\.[01] \d/);
    expect(seen.nats).toMatch(/^INFO \{/);
    expect(inspect?.Config.Env).toContain(`NO_PROXY=${relayHost},localhost,127.0.0.1`);
    // Around the proxy: stopped where the engine enforces --internal; the second engine runs --iptables=false.
    expect(seen.outside).toBe(engineEnforcesInternal(remote?.socket) ? 'timeout' : 'connected');

    // git through its proxy setting (libcurl sends the credential when the 407 asks): refused, and recorded.
    const git = await inWorker(containerId, 'sh', '-c', `git ls-remote http://${refused}/r.git 2>&1; true`);
    expect(git).toMatch(/403/);
    const { refusals } = await call('egress.refusals', { workspace: name });
    expect(refusals.map((r) => `${r.method} ${r.host}:${r.port}`)).toEqual([
      `GET ${refused}`,
      `CONNECT ${refused}`,
      `GET ${refused}`,
    ]);
    expect(refusals[0]?.reason).toMatch(`not on the allow-list of workspace ${name}`);
    const theirRefusals = await call('egress.refusals', { workspace: other });
    expect(theirRefusals.refusals.map((r) => `${r.method} ${r.host}:${r.port}`)).toEqual([`GET ${allowed}`]);

    // A workspace's credential goes with it.
    await call('workspaces.delete', { workspace: other });
    await core.workspaces.idle();
    expect((await probe()).asOther).toMatch(/^407 Refused by Nexus egress: the proxy credential is not/);
  }, 900_000);
});
