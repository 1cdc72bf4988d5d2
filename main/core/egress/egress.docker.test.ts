import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testCore } from '../../../test/helpers/core';
import { ensureTestWorkerImage, realDocker, workspaceTestConfig } from '../../../test/helpers/docker';
import { serveGitRepo } from '../../../test/helpers/git-http-server';
import { engineEnforcesInternal, startOutside } from '../../../test/helpers/outside';
import { waitFor } from '../../../test/helpers/wait';
import { operatorContext } from '../handlers';
import { createLogger } from '../log';
import { Redactor } from '../redact';
import type { EgressStore } from './egress-store';
import { WorkspaceEgress } from './workspace-egress';
import type { Core } from '..';

const op = operatorContext('internal');
/** `egress.registries`: the shipped registry and a mirror the operator added once, for every confined workspace. */
const REGISTRIES = ['registry.npmjs.org', 'npm.mirror.test:8443'];
const run = promisify(execFile);

/**
 * Runs a command in the container as the worker user (uid 1000, as the agent's tools run). Asynchronously: the proxy
 * it goes through is this process's core, whose event loop a synchronous exec would stop.
 */
const inWorker = async (containerId: string, ...cmd: string[]): Promise<string> =>
  (await run('docker', ['exec', '-u', '1000:1000', containerId, ...cmd], { encoding: 'utf8', timeout: 60_000 })).stdout;

/** What the worker's tools do with HTTP_PROXY: an absolute-URL GET, and a CONNECT tunnel with a GET inside. */
const probes = (targets: { allowed: string; refused: string; outside: string; gateway: string; nats: string }) => `
const http = require('http'), net = require('net');
const proxy = new URL(process.env.HTTP_PROXY);
const out = {};
const get = (url) => new Promise((done) => {
  const r = http.request({ host: proxy.hostname, port: proxy.port, path: url, headers: { host: new URL(url).host } }, (s) => {
    let b = ''; s.on('data', (d) => (b += d)); s.on('end', () => done(s.statusCode + ' ' + b.trim()));
  });
  r.on('error', (e) => done('error ' + e.code)); r.end();
});
const tunnel = (target) => new Promise((done) => {
  const r = http.request({ host: proxy.hostname, port: proxy.port, method: 'CONNECT', path: target });
  r.on('connect', (res, socket, head) => {
    if (res.statusCode !== 200) {
      let b = head.toString(); socket.on('data', (d) => (b += d));
      socket.on('end', () => done(res.statusCode + ' ' + b.trim())); return;
    }
    socket.write('GET / HTTP/1.1\\r\\nhost: ' + target + '\\r\\nconnection: close\\r\\n\\r\\n');
    let b = ''; socket.on('data', (d) => (b += d)); socket.on('end', () => done('200 ' + b.split('\\r\\n\\r\\n')[1]));
  });
  r.on('response', (res) => { let b = ''; res.on('data', (d) => (b += d)); res.on('end', () => done(res.statusCode + ' ' + b.trim())); });
  r.on('error', (e) => done('error ' + e.code)); r.end();
});
const direct = (host, port) => new Promise((done) => {
  const s = net.connect({ host, port, timeout: 3000 });
  s.on('connect', () => { s.destroy(); done('connected'); });
  s.on('timeout', () => { s.destroy(); done('timeout'); });
  s.on('error', (e) => done('error ' + e.code));
});
(async () => {
  out.get = await get('http://${targets.allowed}/');
  out.tunnel = await tunnel('${targets.allowed}');
  out.refusedGet = await get('http://${targets.refused}/');
  out.refusedTunnel = await tunnel('${targets.refused}');
  out.outside = await direct(...'${targets.outside}'.split(':'));
  out.gateway = await direct(...'${targets.gateway}'.split(':'));
  out.nats = await direct(...'${targets.nats}'.split(':'));
  console.log(JSON.stringify(out));
})();
`;

describe('egress by allow-list on a real engine', () => {
  const name = `egr-${randomBytes(3).toString('hex')}`;
  const hits: string[] = [];
  let env: Awaited<ReturnType<typeof testCore>> | undefined;
  let core: Core;
  let dataDir: string;
  let repo: Awaited<ReturnType<typeof serveGitRepo>> | undefined;
  let outside: ReturnType<typeof startOutside> | undefined;
  const allowed = '198.51.100.2:8080';
  const refused = '198.51.100.2:8081';

  beforeAll(async () => {
    await ensureTestWorkerImage();
    repo = await serveGitRepo(null);
    outside = startOutside(hits);
    env = await testCore({ ...workspaceTestConfig(), egress: { registries: REGISTRIES } });
    core = env.core;
    dataDir = env.dataDir;
  }, 600_000);

  afterAll(async () => {
    outside?.stop();
    if (env) {
      await env.core.dispatcher.call('workspaces.delete', { workspace: name }, op).catch(() => undefined);
      await env.cleanup();
    }
    await repo?.close();
  });

  it('lets a confined workspace out only to its allow-list through the proxy, and records what it refused', async () => {
    await core.dispatcher.call('workspaces.create', { name, repoUrl: repo?.url ?? '', egress: 'allow-list' }, op);
    await core.workspaces.idle();
    const ws = await core.dispatcher.call('workspaces.get', { workspace: name }, op);
    expect(ws.reason).toBeNull();
    expect(ws.status).toBe('running');
    const containerId = ws.containerId ?? '';

    // The container is on the internal network only, with the proxy in its environment.
    const inspect = await realDocker().getContainer(containerId).inspect();
    expect(Object.keys(inspect.NetworkSettings.Networks)).toEqual(['nexus-confined']);
    expect((await realDocker().getNetwork('nexus-confined').inspect()).Internal).toBe(true);
    const proxyVar = inspect.Config.Env.find((e) => e.startsWith('HTTPS_PROXY=')) ?? '';
    expect(proxyVar).toMatch(/^HTTPS_PROXY=http:\/\/\d+\.\d+\.\d+\.\d+:\d+$/);

    // The defaults: the git host (here a path on the host: none), the configured registries; then the operator's list.
    const before = await core.dispatcher.call('egress.get', { workspace: name }, op);
    expect(before).toMatchObject({ confined: true, custom: false });
    expect(before.hosts).toEqual(expect.arrayContaining(REGISTRIES));
    const rule = await core.dispatcher.call(
      'egress.setHosts',
      { workspace: name, hosts: [allowed, 'Registry.NPMJS.org'] },
      op,
    );
    expect(rule.hosts).toEqual([allowed, 'registry.npmjs.org']);
    await expect(
      core.dispatcher.call('egress.setHosts', { workspace: name, hosts: ['*.com'] }, op),
    ).rejects.toMatchObject({ code: 'bad_request' });

    const nats = new URL(core.platform.url ?? '');
    const gatewayPort = readFileSync(join(dataDir, 'gateway-port'), 'utf8').trim();
    const hostAddress = new URL(proxyVar.slice('HTTPS_PROXY='.length)).hostname;
    const seen = JSON.parse(
      await inWorker(
        containerId,
        'node',
        '-e',
        probes({
          allowed,
          refused,
          outside: allowed,
          gateway: `${hostAddress}:${gatewayPort}`,
          nats: `${nats.hostname}:${nats.port}`,
        }),
      ),
    ) as Record<string, string>;
    expect(seen.get).toBe('200 allowed');
    expect(seen.tunnel).toBe('200 allowed');
    expect(seen.refusedGet).toMatch(/^403 Refused by Nexus egress: 198\.51\.100\.2:8081 is not on the allow-list/);
    expect(seen.refusedTunnel).toMatch(/^403 Refused by Nexus egress: 198\.51\.100\.2:8081 is not on the allow-list/);
    await waitFor(() => hits.length >= 2, 'the allowed server to log its two requests');
    expect(hits).toEqual(['allowed GET /', 'allowed GET /']);
    // The model gateway and NATS are reached straight (NO_PROXY), not through the proxy.
    expect(seen.gateway).toBe('connected');
    expect(seen.nats).toBe('connected');
    // A connection around the proxy to the outside: stopped where the engine enforces --internal; on an engine run
    // with --iptables=false (this machine's) it is not, which docs/security.md says.
    expect(seen.outside).toBe(engineEnforcesInternal() ? 'timeout' : 'connected');

    // git goes through the proxy by itself (GIT_CONFIG_* in the environment): refused, and recorded as such.
    const git = await inWorker(containerId, 'sh', '-c', `git ls-remote http://${refused}/r.git 2>&1; true`);
    expect(git).toMatch(/403/);

    const { refusals } = await core.dispatcher.call('egress.refusals', { workspace: name }, op);
    expect(refusals.map((r) => `${r.method} ${r.host}:${r.port}`)).toEqual([
      `GET ${refused}`,
      `CONNECT ${refused}`,
      `GET ${refused}`,
    ]);
    expect(refusals[0]?.reason).toMatch(`not on the allow-list of workspace ${name}`);
  }, 240_000);

  it('refuses to confine a workspace on host networking, which cannot be confined', () => {
    const egress = new WorkspaceEgress({
      store: {} as EgressStore,
      docker: realDocker(),
      network: 'host',
      registries: [],
      log: createLogger({ stderr: false, redactor: new Redactor() }),
      portFile: join(dataDir, 'unused-port'),
      workspace: () => ({ id: 'w', name: 'w', repoUrl: '', engine: 'local' }),
      workspaceOfContainer: () => null,
      recipeHosts: () => [],
    });
    expect(() => egress.checkCreate(true, 'local')).toThrow(/cannot be confined/);
    expect(() => egress.checkCreate(false, 'local')).not.toThrow();
  });
});
