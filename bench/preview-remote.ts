import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { WORKER_NODE } from '../main/core/docker';
import { copyImage } from '../main/core/engines/engine-copies';
import { createLogger } from '../main/core/log';
import { PreviewDialer, type DialTarget } from '../main/core/previews/preview-dial';
import { PreviewProxy } from '../main/core/previews/preview-proxy';
import { Redactor } from '../main/core/redact';
import { realDocker } from '../test/helpers/docker';
import { PREVIEW_APP } from '../test/helpers/preview-app';
import { linkToSecondEngine, startSecondEngine } from '../test/helpers/second-engine';

/**
 * A session's app on a remote engine, previewed: a second dockerd behind sshd on 127.0.0.1 (what the engine tests
 * make, test/helpers/second-engine.ts), reached over Nexus's one SSH connection (engine-link.ts), the worker image
 * copied there, the preview app in a container of it on a bridge of that engine, and the preview proxy in front of it
 * as core routes a remote session's preview: `PreviewService.resolve` gives a target with `local: false` and the
 * engine's SSH tunnel (compose/sessions.ts: `SshConnection.forwardOut`), which the dialer takes to the container's
 * address on the remote host. `dial` is that path; `dialExec` the exec path (an app on its container's 127.0.0.1, a
 * TLS engine, an SSH server that forwards nothing). Needs root.
 */
export async function remotePreview(image: string, appPort: number) {
  const remote = await startSecondEngine({ pool: '10.203.0.0/16' });
  const link = linkToSecondEngine(remote, 'bench-preview');
  const ssh = link.ssh;
  if (!ssh) throw new Error('the second engine is not linked by SSH');
  let front: Server | null = null;
  const proxy = new PreviewProxy(
    () => Promise.resolve({ key: 'remote', dial: () => dialer.dial(target) }),
    createLogger({ redactor: new Redactor() }),
  );
  const dialer = new PreviewDialer();
  let target: DialTarget = {
    docker: link.docker,
    containerId: '',
    port: appPort,
    local: false,
    loopbackOnly: false,
    ipv6Only: false,
    tunnel: (host, port) => ssh.forwardOut(host, port),
  };
  const dispose = async (): Promise<void> => {
    proxy.dispose();
    front?.closeAllConnections();
    await new Promise((r) => (front ? front.close(r) : r(undefined)));
    link.dispose();
    await remote.dispose();
  };
  try {
    await copyImage(realDocker(), remote.docker, image, () => undefined, 'bench-preview');
    // A workspace's network on that engine (the second dockerd has no default bridge): its bridge is on the remote host.
    await remote.docker.createNetwork({ Name: 'nexus', Driver: 'bridge' });
    const c = await remote.docker.createContainer({
      Image: image,
      Entrypoint: [WORKER_NODE, '-e', PREVIEW_APP, String(appPort), '0.0.0.0'],
      Labels: { 'nexus.bench': `preview-${randomBytes(3).toString('hex')}` },
      User: '1000:1000',
      HostConfig: { NetworkMode: 'nexus' },
    });
    await c.start();
    target = { ...target, containerId: c.id };
    // Until the app answers through the link (the container's Node takes a moment to start).
    for (let i = 0; ; i++) {
      const ok = await dialer.dial(target).then(
        (s) =>
          new Promise<boolean>((resolve) => {
            const no = (): void => (s.destroy(), resolve(false));
            const timer = setTimeout(no, 5000);
            s.once('data', () => (clearTimeout(timer), s.destroy(), resolve(true)));
            s.once('end', () => (clearTimeout(timer), no()));
            s.once('error', () => (clearTimeout(timer), no()));
            s.write('GET / HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n');
          }),
        () => false,
      );
      if (ok) break;
      if (i > 60) throw new Error('the remote preview app did not answer');
      await new Promise((r) => setTimeout(r, 500));
    }
    front = createServer((req, res) => void proxy.handle(req, res, { port: appPort, session: 'web', workspace: 'r' }));
    front.on('upgrade', (req, socket, head) =>
      proxy.upgrade(req, socket, head, { port: appPort, session: 'web', workspace: 'r' }),
    );
    await new Promise<void>((r) => front?.listen(0, '127.0.0.1', () => r()));
    const port = (front.address() as AddressInfo).port;
    return {
      target: { host: '127.0.0.1', port, hostHeader: `${appPort}-web.r.localhost:${port}` },
      /** A new connection as the proxy opens one (the SSH tunnel), no pool: the cold figure. */
      dial: () => dialer.dial(target),
      /** A new connection by the exec path over the same link (what an app on its container's 127.0.0.1 gets). */
      dialExec: () => dialer.dial({ ...target, loopbackOnly: true }),
      /** Connections the dialer opened by each path so far. */
      opened: () => ({ ...dialer.opened }),
      sshConnections: () => ssh.connects,
      dispose,
    };
  } catch (e) {
    await dispose();
    throw e;
  }
}
