import type Docker from 'dockerode';
import { connect, Socket } from 'node:net';
import { PassThrough, type Duplex } from 'node:stream';
import { WORKER_NODE } from '../docker';
import type { Logger } from '../log';
import { StreamSocket, type PreviewSocket } from './stream-socket';

export type { PreviewSocket } from './stream-socket';

/** What carried a tunnel: the engine's resident OpenSSH child process, or ssh2's channel on core's event loop. */
export type Carrier = 'openssh' | 'ssh2';

/**
 * A TCP connection from a remote engine's host to `host:port` over the engine's SSH link (its `SshConnection.tunnel`:
 * an OpenSSH child's SOCKS forward, else a `direct-tcpip` channel of ssh2's connection), with what carried it. It
 * rejects with `reason: 'prohibited'` when the SSH server forwards nothing (sshd `AllowTcpForwarding no`),
 * `reason: 'connect_failed'` when nothing answers there, `reason: 'timeout'` when it did not open in time; any other
 * rejection is the link's.
 */
export type Tunnel = (host: string, port: number) => Promise<{ stream: Duplex; carrier: Carrier }>;

/** Where a preview's bytes go: the container's port, on the engine that holds it. */
export interface DialTarget {
  docker: Docker;
  containerId: string;
  port: number;
  /** On the local engine, a container on a bridge is reached at its address there; a remote one is not. */
  local: boolean;
  loopbackOnly: boolean;
  ipv6Only: boolean;
  /** A remote engine over SSH: its container's address is reached through this, not by an exec. */
  tunnel?: Tunnel;
}

export type Via = 'bridge' | 'tunnel' | 'exec';
/** How a port is reached; only an app listening beyond its container's loopback has an address to go to. */
export const viaOf = (t: Pick<DialTarget, 'local' | 'loopbackOnly' | 'ipv6Only' | 'tunnel'>): Via =>
  t.loopbackOnly || t.ipv6Only ? 'exec' : t.local ? 'bridge' : t.tunnel ? 'tunnel' : 'exec';

const CONNECT_TIMEOUT_MS = 5_000;
/** How long an engine whose tunnel did not open in time is served by exec before its tunnel is tried again. */
const TUNNEL_RETRY_MS = 5 * 60_000;

const reasonOf = (e: unknown): unknown => (e instanceof Error ? (e as { reason?: unknown }).reason : undefined);

/**
 * Opens a connection to a preview's port. A port the container listens on beyond its loopback is reached at the
 * container's address: on the local engine by a plain TCP connection to its bridge address (what the bench
 * measures), on a remote engine over SSH by a tunnel to that address on the remote host (the engine's resident
 * OpenSSH child, else a `direct-tcpip` channel of its ssh2 connection: no process started per connection, no exec
 * framing, dockerd not on the byte path). Otherwise (an app
 * bound to 127.0.0.1 or ::1 in its container, a TLS engine, an SSH server that forwards nothing) a `docker exec` of
 * the helpers' pinned Node pipes the connection's bytes (one exec per connection; the proxy keeps them alive and
 * reuses them).
 */
export class PreviewDialer {
  private readonly addresses = new Map<string, string>();
  /**
   * Engines (by their dockerode) whose tunnel is not tried before a time, the exec pipe serving them meanwhile: never
   * again when their SSH server forwards nothing, a while when a tunnel did not open in time.
   */
  private readonly noTunnelUntil = new WeakMap<Docker, number>();
  /** Connections opened by each path (tests and the bench read it). */
  readonly opened: Record<Via, number> = { bridge: 0, tunnel: 0, exec: 0 };
  /** Tunnels opened by what carried them (tests and the bench read it). */
  readonly carried: Record<Carrier, number> = { openssh: 0, ssh2: 0 };

  constructor(private readonly log?: Logger) {}

  async dial(t: DialTarget): Promise<PreviewSocket> {
    const via = viaOf(t);
    if (via === 'bridge') return this.count('bridge', await this.bridge(t));
    if (via === 'tunnel' && t.tunnel && (this.noTunnelUntil.get(t.docker) ?? 0) <= Date.now()) {
      const s = await this.tunnel(t, t.tunnel).catch((e: unknown) => this.refused(t, e));
      if (s) return this.count('tunnel', s);
    }
    return this.count('exec', await execPipe(t));
  }

  private count(via: Via, s: PreviewSocket): PreviewSocket {
    this.opened[via] += 1;
    return s;
  }

  private async bridge(t: DialTarget): Promise<PreviewSocket> {
    const host = await this.addressOf(t);
    return new Promise((resolve, reject) => {
      const s = connect({ host, port: t.port });
      const timer = setTimeout(() => s.destroy(new Error(`connect to port ${t.port} timed out`)), CONNECT_TIMEOUT_MS);
      s.once('connect', () => (clearTimeout(timer), s.setNoDelay(true), resolve(s)));
      s.once('error', (e) => (clearTimeout(timer), this.addresses.delete(t.containerId), reject(e)));
    });
  }

  /**
   * A tunnel to the container's address on the engine's host; one that opens too late is closed when it comes. The
   * OpenSSH child's is a unix socket, pooled as it is; ssh2's channel is wrapped as one.
   */
  private async tunnel(t: DialTarget, open: Tunnel): Promise<PreviewSocket> {
    const opening = open(await this.addressOf(t), t.port);
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_resolve, reject) => {
      timer = setTimeout(
        () => reject(Object.assign(new Error(`the tunnel to port ${t.port} did not open`), { reason: 'timeout' })),
        CONNECT_TIMEOUT_MS,
      );
    });
    try {
      const { stream, carrier } = await Promise.race([opening, late]);
      this.carried[carrier] += 1;
      return stream instanceof Socket ? stream : new StreamSocket(stream);
    } catch (e) {
      void opening.then(
        (s) => s.stream.destroy(),
        () => undefined,
      );
      throw e;
    } finally {
      clearTimeout(timer);
    }
  }

  /**
   * A tunnel not had: the exec pipe serves instead (null). On that engine for good (said once) when its SSH server
   * forwards nothing; for a while when it did not open in time (a host with no route to its containers' addresses, as
   * with rootless Docker, would stall every connection; a link that was only slow gets its tunnel back); for this
   * connection only when refused at the address (the app restarting). The link's own failure is thrown: an exec would
   * go over the same link.
   */
  private refused(t: DialTarget, e: unknown): null {
    const reason = reasonOf(e);
    if (reason === 'prohibited' || reason === 'timeout') {
      const prohibited = reason === 'prohibited';
      this.noTunnelUntil.set(t.docker, prohibited ? Infinity : Date.now() + TUNNEL_RETRY_MS);
      const why = prohibited
        ? "the engine's SSH server forwards no TCP"
        : "a tunnel to the engine's container did not open";
      this.log?.debug(`${why}: its previews go by docker exec`, { error: e });
      return null;
    }
    if (reason === 'connect_failed' || reason === 'other') {
      this.addresses.delete(t.containerId);
      return null;
    }
    throw e;
  }

  /** The container's address on its first network with one; a host-network container shares loopback. */
  private async addressOf(t: DialTarget): Promise<string> {
    const known = this.addresses.get(t.containerId);
    if (known) return known;
    const info = await t.docker.getContainer(t.containerId).inspect();
    const nets = Object.values(info.NetworkSettings.Networks ?? {});
    const address = nets.map((n) => n.IPAddress).find((a) => a) ?? '127.0.0.1';
    this.addresses.set(t.containerId, address);
    return address;
  }

  forget(containerId: string): void {
    this.addresses.delete(containerId);
  }
}

/** Run in the container: connects to the port and copies stdin to it and it to stdout, then exits. */
const PIPE_SCRIPT = String.raw`
const s = require('net').connect(Number(process.argv[1]), process.argv[2]);
s.setNoDelay(true);
s.on('error', () => process.exit(1));
process.stdin.pipe(s);
s.pipe(process.stdout);
s.on('close', () => process.stdout.write('', () => process.exit(0)));
`;

async function execPipe(t: DialTarget): Promise<PreviewSocket> {
  const exec = await t.docker.getContainer(t.containerId).exec({
    Cmd: [WORKER_NODE, '-e', PIPE_SCRIPT, String(t.port), t.ipv6Only ? '::1' : '127.0.0.1'],
    AttachStdin: true,
    AttachStdout: true,
    AttachStderr: true,
    Tty: false,
  });
  const stream = (await exec.start({ hijack: true, stdin: true })) as Duplex;
  const out = new PassThrough();
  t.docker.modem.demuxStream(stream, out, new PassThrough().resume());
  // The demuxed stdout ends with the exec's stream (registered before the socket's own 'close' handler).
  stream.on('end', () => out.end());
  stream.on('close', () => out.end());
  return new StreamSocket(stream, out);
}
