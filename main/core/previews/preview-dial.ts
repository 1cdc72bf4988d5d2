import type Docker from 'dockerode';
import { connect } from 'node:net';
import { Duplex, PassThrough } from 'node:stream';
import { WORKER_NODE } from '../docker';

/** Where a preview's bytes go: the container's port, on the engine that holds it. */
export interface DialTarget {
  docker: Docker;
  containerId: string;
  port: number;
  /** On the local engine, a container on a bridge is reached at its address there; a remote one is not. */
  local: boolean;
  loopbackOnly: boolean;
  ipv6Only: boolean;
}

export type Via = 'bridge' | 'exec';
export const viaOf = (t: Pick<DialTarget, 'local' | 'loopbackOnly' | 'ipv6Only'>): Via =>
  t.local && !t.loopbackOnly && !t.ipv6Only ? 'bridge' : 'exec';

/** A stream the HTTP client can pool like a socket (it asks these of its sockets). */
export interface PreviewSocket extends Duplex {
  setKeepAlive(enable?: boolean, delay?: number): unknown;
  setNoDelay(noDelay?: boolean): unknown;
  setTimeout(ms: number, cb?: () => void): unknown;
  ref(): unknown;
  unref(): unknown;
}

const CONNECT_TIMEOUT_MS = 5_000;

/**
 * Opens a connection to a preview's port. On the local engine a port the container listens on beyond its
 * loopback is reached at the container's bridge address (a plain TCP connection: what the bench measures);
 * otherwise (a remote engine through its link, SSH or TLS; an app bound to 127.0.0.1 in its container) a
 * `docker exec` of the helpers' pinned Node pipes the connection's bytes (one exec per connection; the proxy
 * keeps them alive and reuses them).
 */
export class PreviewDialer {
  private readonly addresses = new Map<string, string>();

  async dial(t: DialTarget): Promise<PreviewSocket> {
    return viaOf(t) === 'bridge' ? this.bridge(t) : execPipe(t);
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
  return new ExecPipe(stream, out);
}

/** The exec's hijacked stream as a socket: writes go to the process's stdin, its demuxed stdout is read. */
class ExecPipe extends Duplex implements PreviewSocket {
  private timeoutCb: (() => void) | null = null;
  private idle: NodeJS.Timeout | null = null;

  constructor(
    private readonly stream: Duplex,
    private readonly out: PassThrough,
  ) {
    super();
    out.on('data', (d: Buffer) => {
      if (!this.push(d)) out.pause();
    });
    out.on('end', () => this.push(null));
    stream.on('end', () => out.end());
    stream.on('close', () => (out.end(), this.destroy()));
    stream.on('error', (e) => this.destroy(e));
  }
  override _read(): void {
    this.out.resume();
  }
  override _write(chunk: Buffer, _enc: BufferEncoding, done: (e?: Error | null) => void): void {
    this.stream.write(chunk, done);
  }
  override _final(done: (e?: Error | null) => void): void {
    this.stream.end();
    done();
  }
  override _destroy(e: Error | null, done: (e?: Error | null) => void): void {
    if (this.idle) clearTimeout(this.idle);
    this.stream.destroy();
    done(e);
  }
  setKeepAlive(): this {
    return this;
  }
  setNoDelay(): this {
    return this;
  }
  /** Like a socket's: 'timeout' after `ms` idle (0: never); a newer callback replaces the one before it. */
  setTimeout(ms: number, cb?: () => void): this {
    if (this.timeoutCb) this.removeListener('timeout', this.timeoutCb);
    this.timeoutCb = cb ?? null;
    if (cb) this.once('timeout', cb);
    if (this.idle) clearTimeout(this.idle);
    this.idle = null;
    if (ms > 0) {
      this.idle = setTimeout(() => this.emit('timeout'), ms);
      this.idle.unref();
    }
    return this;
  }
  ref(): this {
    return this;
  }
  unref(): this {
    return this;
  }
}
