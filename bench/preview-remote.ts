import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { WORKER_NODE } from '../main/core/docker';
import { copyImage } from '../main/core/engines/engine-copies';
import { openSshBinary } from '../main/core/engines/programs';
import { createLogger } from '../main/core/log';
import { PreviewDialer, type Carrier, type DialTarget } from '../main/core/previews/preview-dial';
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
 * engine's tunnel (compose/sessions.ts: `SshConnection.tunnel`), which the dialer takes to the container's address on
 * the remote host. Two fronts, one per carrier of that tunnel, in the same run: `openssh` (the engine's resident
 * OpenSSH child, what core uses when it has `ssh`) and `ssh2` (a `direct-tcpip` channel on core's event loop, what it
 * uses without). `dial` is the tunnel; `dialExec` the exec path (an app on its container's 127.0.0.1, a TLS engine, an
 * SSH server that forwards nothing). Needs root.
 */
export async function remotePreview(image: string, appPort: number) {
  const binary = openSshBinary();
  if (!binary) throw new Error('no OpenSSH `ssh` on PATH');
  const remote = await startSecondEngine({ pool: '10.203.0.0/16' });
  const link = linkToSecondEngine(remote, 'bench-preview');
  const ssh = link.ssh;
  if (!ssh) throw new Error('the second engine is not linked by SSH');
  const log = createLogger({ redactor: new Redactor() });
  const fronts: Server[] = [];
  const proxies: PreviewProxy[] = [];
  const dialers: Record<Carrier, PreviewDialer> = { openssh: new PreviewDialer(log), ssh2: new PreviewDialer(log) };
  const base: DialTarget = {
    docker: link.docker,
    containerId: '',
    port: appPort,
    local: false,
    loopbackOnly: false,
    ipv6Only: false,
  };
  const targetOf = (carrier: Carrier): DialTarget => ({
    ...base,
    tunnel: (host, port) => ssh.tunnel(host, port, carrier === 'openssh' ? { binary, log } : null),
  });
  const dispose = async (): Promise<void> => {
    for (const p of proxies) p.dispose();
    for (const f of fronts) {
      f.closeAllConnections();
      await new Promise((r) => f.close(r));
    }
    link.dispose();
    await remote.dispose();
  };
  /** A front for one carrier: the preview proxy on a loopback port, as the host hands it a preview origin. */
  const front = async (carrier: Carrier): Promise<{ host: string; port: number; hostHeader: string }> => {
    const proxy = new PreviewProxy(
      () => Promise.resolve({ key: carrier, dial: () => dialers[carrier].dial(targetOf(carrier)) }),
      log,
    );
    proxies.push(proxy);
    const f = createServer(
      (req, res) => void proxy.handle(req, res, { port: appPort, session: 'web', workspace: 'r' }),
    );
    f.on('upgrade', (req, socket, head) =>
      proxy.upgrade(req, socket, head, { port: appPort, session: 'web', workspace: 'r' }),
    );
    fronts.push(f);
    await new Promise<void>((r) => f.listen(0, '127.0.0.1', () => r()));
    const port = (f.address() as AddressInfo).port;
    return { host: '127.0.0.1', port, hostHeader: `${appPort}-web.r.localhost:${port}` };
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
    base.containerId = c.id;
    // Until the app answers through each carrier (the container's Node takes a moment to start, ssh to sign in).
    for (const carrier of ['ssh2', 'openssh'] as const)
      for (let i = 0; ; i++) {
        const ok = await dialers[carrier].dial(targetOf(carrier)).then(
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
        if (ok && dialers[carrier].carried[carrier] > 0) break;
        if (i > 60) throw new Error(`the remote preview app did not answer through ${carrier}`);
        await new Promise((r) => setTimeout(r, 500));
      }
    const targets = { ssh2: await front('ssh2'), openssh: await front('openssh') };
    return {
      targets,
      /** A new connection as the proxy opens one (the tunnel by that carrier), no pool: the cold figure. */
      dial: (carrier: Carrier) => dialers[carrier].dial(targetOf(carrier)),
      /** A new connection by the exec path over the same link (what an app on its container's 127.0.0.1 gets). */
      dialExec: () => dialers.ssh2.dial({ ...base, loopbackOnly: true }),
      /** Connections each carrier's dialer opened so far, by path and by what carried the tunnels. */
      opened: (carrier: Carrier) => ({ ...dialers[carrier].opened, ...dialers[carrier].carried }),
      sshConnections: () => ssh.connects,
      /** The OpenSSH child's `ssh` process (the wrapper shell's child), null before it started. */
      openSshPid: () => ssh.openSshTunnels?.pid ?? null,
      dispose,
    };
  } catch (e) {
    await dispose();
    throw e;
  }
}
