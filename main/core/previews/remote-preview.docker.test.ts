import { statSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { dirname } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureTestWorkerImage, realDocker } from '../../../test/helpers/docker';
import { PREVIEW_APP, previewGet, previewHotReload } from '../../../test/helpers/preview-app';
import { linkToSecondEngine, startSecondEngine, type SecondEngine } from '../../../test/helpers/second-engine';
import { waitFor } from '../../../test/helpers/wait';
import { WORKER_NODE } from '../docker';
import { copyImage } from '../engines/engine-copies';
import type { EngineLink } from '../engines/engine-link';
import { openSshBinary } from '../engines/programs';
import { ForwardRefused } from '../engines/ssh-connection';
import { createLogger, type Logger } from '../log';
import { Redactor } from '../redact';
import { PreviewDialer, type DialTarget } from './preview-dial';
import { PreviewProxy } from './preview-proxy';

// Issue 42 item 3: a session's app on a remote engine, previewed over the engine's SSH link. Needs root: a second
// dockerd behind an sshd on 127.0.0.1 (test/helpers/second-engine.ts), the worker image copied there, the preview app
// in one container on a bridge of that engine, the preview proxy in front of it as core routes it. The tunnels go
// through the engine's resident OpenSSH child (`ssh -D` on a unix socket), as core has them when `ssh` is on PATH.
const PORT = 3000;
let remote: SecondEngine;
let link: EngineLink;
let containerId = '';
let front: Server | null = null;
let frontPort = 0;
const debug: string[] = [];
const log: Logger = { ...createLogger({ redactor: new Redactor(), stderr: false }), debug: (m) => void debug.push(m) };
const binary = openSshBinary();
const openssh = binary ? { binary, log } : null;
// `web`: the engine's tunnel as compose/sessions.ts hands it (OpenSSH's `ssh` found); `plain`: the same on a machine
// without `ssh` (ssh2's channel); `refused`: an SSH server that forwards nothing.
const dialers = { web: new PreviewDialer(log), plain: new PreviewDialer(log), refused: new PreviewDialer(log) };
type Session = keyof typeof dialers;
let refusals = 0;
const targetOf = (session: Session): DialTarget => ({
  docker: link.docker,
  containerId,
  port: PORT,
  local: false,
  loopbackOnly: false,
  ipv6Only: false,
  tunnel:
    session === 'refused'
      ? (host, port) => {
          refusals += 1;
          return Promise.reject(new ForwardRefused('prohibited', { host, port }, 'open failed'));
        }
      : (host, port) =>
          link.ssh
            ? link.ssh.tunnel(host, port, session === 'web' ? openssh : null)
            : Promise.reject(new Error('no SSH')),
});

beforeAll(async () => {
  if (!openssh) throw new Error('this test needs OpenSSH `ssh` on PATH (the tunnels are its)');
  const image = await ensureTestWorkerImage();
  remote = await startSecondEngine({ pool: '10.205.0.0/16' });
  link = linkToSecondEngine(remote, 'preview-test');
  await copyImage(realDocker(), remote.docker, image, () => undefined, 'preview-test');
  // A workspace network on that engine (the second dockerd has no default bridge): its bridge is on the remote host.
  await remote.docker.createNetwork({ Name: 'nexus', Driver: 'bridge' });
  const c = await remote.docker.createContainer({
    Image: image,
    Entrypoint: [WORKER_NODE, '-e', PREVIEW_APP, String(PORT), '0.0.0.0'],
    User: '1000:1000',
    HostConfig: { NetworkMode: 'nexus' },
  });
  await c.start();
  containerId = c.id;
  const proxy = new PreviewProxy(
    (name) =>
      Promise.resolve({
        key: name.session,
        dial: () => dialers[name.session as Session].dial(targetOf(name.session as Session)),
      }),
    log,
  );
  front = createServer((req, res) => void proxy.handle(req, res, nameOf(req.headers.host)));
  front.on('upgrade', (req, socket, head) => proxy.upgrade(req, socket, head, nameOf(req.headers.host)));
  front.on('close', () => proxy.dispose());
  await new Promise<void>((r) => front?.listen(0, '127.0.0.1', () => r()));
  frontPort = (front.address() as AddressInfo).port;
}, 300_000);

afterAll(async () => {
  // The second engine goes whatever happened: its daemons and files must not outlive the test.
  try {
    front?.closeAllConnections();
    await new Promise((r) => (front ? front.close(r) : r(undefined)));
    link?.dispose();
  } finally {
    await remote?.dispose();
  }
}, 120_000);

const nameOf = (host: string | undefined) => ({
  port: PORT,
  session: (host ?? '').split('.')[0] ?? '',
  workspace: 'r',
});

const get = (session: string, path: string) => previewGet(frontPort, `${session}.r`, path);
const hotMessage = (session: string) => previewHotReload(frontPort, `${session}.r`);

/** Execs the remote engine holds for the container (each `docker exec` made there leaves one). */
const execsOnEngine = async (): Promise<number> =>
  ((await remote.docker.getContainer(containerId).inspect()).ExecIDs ?? []).length;

describe('a preview on a remote engine over SSH', () => {
  it('tells a port nothing listens on from a forbidden forward: the server refuses it as connect_failed', async () => {
    const ssh = link.ssh;
    if (!ssh) throw new Error('the second engine is not linked by SSH');
    const { NetworkSettings } = await remote.docker.getContainer(containerId).inspect();
    const address = Object.values(NetworkSettings.Networks ?? {})[0]?.IPAddress ?? '';
    await expect(ssh.forwardOut(address, PORT + 1)).rejects.toMatchObject({ reason: 'connect_failed' });
    // Until the app listens (its container's Node takes a moment to start).
    await waitFor(
      () =>
        ssh.forwardOut(address, PORT).then(
          (s) => (s.destroy(), true),
          () => false,
        ),
      'the preview app to listen',
      30_000,
    );
  }, 60_000);

  it("serves the page, a 10 MB asset and the hot-reload WebSocket through the OpenSSH child's tunnel to the container's address", async () => {
    const execs = await execsOnEngine();
    const page = await get('web', '/');
    expect(page.status).toBe(200);
    expect(page.body).toContain('The previewed app');
    expect((await get('web', '/big')).body.length).toBe(10 * 1024 * 1024);
    expect(await hotMessage('web')).toEqual(['reload', 'saved src/app.tsx']);
    expect(dialers.web.opened.tunnel).toBeGreaterThanOrEqual(2);
    expect(dialers.web.opened.exec).toBe(0);
    // Every tunnel carried by the OpenSSH child, none by ssh2's channel on core's event loop.
    expect(dialers.web.carried.openssh).toBe(dialers.web.opened.tunnel);
    expect(dialers.web.carried.ssh2).toBe(0);
    expect(await execsOnEngine()).toBe(execs);
    // Its SOCKS listener is a unix socket only core's user may open, in a directory only it may enter.
    const socks = link.ssh?.openSshTunnels;
    expect(socks?.pid).toBeGreaterThan(0);
    expect(socks?.starts).toBe(1);
    expect(statSync(socks?.path ?? '').isSocket()).toBe(true);
    expect(statSync(socks?.path ?? '').mode & 0o777).toBe(0o600);
    expect(statSync(dirname(socks?.path ?? '')).mode & 0o777).toBe(0o700);
  }, 60_000);

  it("tells a port nothing listens on through the OpenSSH child's tunnel as connect_failed, as ssh2's would", async () => {
    const ssh = link.ssh;
    if (!ssh) throw new Error('the second engine is not linked by SSH');
    const { NetworkSettings } = await remote.docker.getContainer(containerId).inspect();
    const address = Object.values(NetworkSettings.Networks ?? {})[0]?.IPAddress ?? '';
    await expect(ssh.tunnel(address, PORT + 1, openssh)).rejects.toMatchObject({ reason: 'connect_failed' });
  }, 30_000);

  it("is carried by ssh2's channel on a machine without OpenSSH's `ssh`", async () => {
    expect((await get('plain', '/')).body).toContain('The previewed app');
    expect(dialers.plain.opened).toEqual({ bridge: 0, tunnel: 1, exec: 0 });
    expect(dialers.plain.carried).toEqual({ openssh: 0, ssh2: 1 });
  }, 30_000);

  it("falls back to a docker exec, for good, when the engine's SSH server forwards nothing", async () => {
    const execs = await execsOnEngine();
    expect((await get('refused', '/')).body).toContain('The previewed app');
    expect(await hotMessage('refused')).toEqual(['reload', 'saved src/app.tsx']);
    expect(dialers.refused.opened).toEqual({ bridge: 0, tunnel: 0, exec: 2 });
    expect(await execsOnEngine()).toBe(execs + 2);
    // Asked once; said once at debug.
    expect(refusals).toBe(1);
    expect(debug.filter((m) => m.includes('forwards no TCP'))).toHaveLength(1);
  }, 60_000);
});
