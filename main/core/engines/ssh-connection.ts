import { createHash } from 'node:crypto';
import { connect as tcpConnect, isIPv4 } from 'node:net';
import { pipeline } from 'node:stream';
import type { Duplex } from 'node:stream';
import { Client } from 'ssh2';
import { NexusError } from '../../../shared/errors';
import type { Logger } from '../log';
import type { DockerEndpoint } from './engine-url';
import { OpenSshForward, type ForwardTarget } from './openssh-forward';
import { OpenSshSocks } from './openssh-socks';
import { SocksConnectFailed } from './socks5-connect';

export interface SshTarget {
  host: string;
  port: number;
  username: string;
  endpoint: DockerEndpoint;
}

/** OpenSSH's form of a host key's fingerprint (`ssh-keygen -lf`): `SHA256:` and the unpadded base64 digest. */
export const fingerprintOf = (key: Buffer): string =>
  `SHA256:${createHash('sha256').update(key).digest('base64').replace(/=+$/, '')}`;

const READY_TIMEOUT_MS = 10_000;
const CIPHERS: ('aes128-gcm@openssh.com' | 'aes256-gcm@openssh.com' | 'aes128-ctr' | 'aes256-ctr')[] = [
  'aes128-gcm@openssh.com',
  'aes256-gcm@openssh.com',
  'aes128-ctr',
  'aes256-ctr',
];

/** A connection failure typed as the engine being unreachable (isEngineDown reads the code). */
const unreachable = (e: unknown): Error => {
  const err = e instanceof Error ? e : new Error(String(e));
  if (!(err as { code?: unknown }).code) Object.assign(err, { code: 'ENOTCONN' });
  return err;
};

/**
 * The SSH server answered no to a TCP connection asked of it (a `direct-tcpip` channel): `prohibited` when it
 * forwards nothing (sshd `AllowTcpForwarding no`, a `PermitOpen` that leaves the address out), `connect_failed`
 * when nothing answers at the address on its side, `other` for any other refusal. The connection itself is fine.
 */
export class ForwardRefused extends Error {
  constructor(
    readonly reason: 'prohibited' | 'connect_failed' | 'other',
    readonly to: { host: string; port: number },
    description: string,
  ) {
    super(`The engine's SSH server refused a connection to ${to.host}:${to.port}: ${description || reason}`);
    this.name = 'ForwardRefused';
  }
}

/** What carried a tunnel (SshConnection.tunnel): OpenSSH's child process, or ssh2 on core's event loop. */
export type TunnelCarrier = 'openssh' | 'ssh2';

/** How long a tunnel through the OpenSSH child may take to open (the preview dialer's own bound is the same). */
const TUNNEL_OPEN_MS = 5_000;
/** How long the first tunnel waits for the OpenSSH child to start before ssh2 carries it instead. */
const SOCKS_START_WAIT_MS = 3_000;

/** RFC 4254 5.1's reason codes of a channel the server would not open. */
const OPEN_FAILURE: Record<number, ForwardRefused['reason']> = { 1: 'prohibited', 2: 'connect_failed' };

export const hostKeyChanged = (pinned: string, offered: string): NexusError =>
  new NexusError(
    'host_key_changed',
    `The engine's SSH host key changed: pinned ${pinned}, now offered ${offered}. Refused (no key or command was sent). ` +
      'If the host was reinstalled, remove the engine and add it again.',
  );

/**
 * Asks the host for its key and goes no further: the verifier refuses, so the handshake ends before
 * any authentication and no private key is offered to a host the operator has not confirmed.
 */
export function offeredHostKey(
  target: Pick<SshTarget, 'host' | 'port'>,
  timeoutMs = READY_TIMEOUT_MS,
): Promise<string> {
  return new Promise((resolve, reject) => {
    const c = new Client();
    let offered: string | null = null;
    const done = (): void => {
      c.end();
      if (offered) resolve(offered);
      else reject(new NexusError('unavailable', `No SSH host answered at ${target.host}:${target.port}.`));
    };
    c.on('error', (e) =>
      offered
        ? done()
        : (c.end(), reject(new NexusError('unavailable', `SSH to ${target.host}:${target.port}: ${e.message}`))),
    );
    c.on('close', done);
    c.connect({
      host: target.host,
      port: target.port,
      username: 'nexus-host-key-probe',
      readyTimeout: timeoutMs,
      hostVerifier: (key: Buffer) => {
        offered = fingerprintOf(key);
        return false;
      },
    });
  });
}

/**
 * One persistent SSH connection to an engine, carrying every Docker API request as its own channel
 * (a forwarded unix socket, or `docker system dial-stdio`). The host key must match the pinned one;
 * keepalives notice a dead link; after a drop the next channel reconnects.
 */
export class SshConnection {
  private client: Client | null = null;
  private pending: Promise<Client> | null = null;
  private closed = false;
  /** Connections made (the first, then each reconnect): tests and the Engines page read it. */
  connects = 0;
  /** Set while the host shows another key than the pinned one (cleared by a good handshake). */
  hostKeyFailure: NexusError | null = null;
  /** Remote forwards (the remote host's 127.0.0.1:<port> → a local address), asked again on every connect. */
  private readonly forwards = new Map<number, { host: string; port: number }>();
  /** The pinned host key's wire blob, from the last handshake that matched the pin (OpenSSH's known_hosts). */
  private hostKeyBlob: Buffer | null = null;
  /** Forwards carried by OpenSSH child processes (forwardInOpenSsh), by their targets; ended with this connection. */
  private readonly openSsh = new Map<string, { forward: OpenSshForward; ports: Promise<number[]> }>();
  /** The OpenSSH child carrying tunnels (openssh-socks.ts), made at the first tunnel asked with a binary. */
  private socks: OpenSshSocks | null = null;
  /** Set once the SSH server refused a tunnel as prohibited: no OpenSSH child is kept for tunnels it refuses. */
  private socksRefused = false;

  constructor(
    private readonly target: SshTarget,
    private readonly deps: {
      /** The private key (PEM/OpenSSH), resolved from the vault at each connect. */
      privateKey: () => Promise<string>;
      pinnedHostKey: string;
      keepaliveMs?: number;
      /** Told when the connection drops (the engine's watch reconnects). */
      onDrop?: (reason: string) => void;
    },
  ) {}

  get connected(): boolean {
    return this.client !== null;
  }

  /**
   * A new channel to the engine's Docker API over the one connection (connecting first if needed).
   * A channel refused on a connection that just died (cut before its close was noticed) is asked
   * once more on a new connection, so a request right after a drop does not fail.
   */
  async channel(): Promise<Duplex> {
    const c = await this.connect();
    try {
      return await this.openChannel(c);
    } catch (e) {
      if (this.closed || this.hostKeyFailure) throw e;
      if (this.client === c) this.drop();
      return this.openChannel(await this.connect());
    }
  }

  private openChannel(c: Client): Promise<Duplex> {
    return new Promise((resolve, reject) => {
      const cb = (err: Error | undefined, stream: Duplex): void => (err ? reject(unreachable(err)) : resolve(stream));
      try {
        if (this.target.endpoint.kind === 'socket') c.openssh_forwardOutStreamLocal(this.target.endpoint.path, cb);
        else c.exec('docker system dial-stdio', cb);
      } catch (e) {
        reject(unreachable(e));
      }
    });
  }

  /**
   * A TCP connection from the engine's host to `host:port` (a `direct-tcpip` channel over the one connection): what
   * reaches a container's address there with no process started for it. Like channel(), asked once more on a new
   * connection when the one it had just died; a refusal by the server (ForwardRefused) is its answer, not retried.
   */
  async forwardOut(host: string, port: number): Promise<Duplex> {
    const c = await this.connect();
    try {
      return await openForward(c, host, port);
    } catch (e) {
      if (e instanceof ForwardRefused || this.closed || this.hostKeyFailure) throw e;
      if (this.client === c) this.drop();
      return openForward(await this.connect(), host, port);
    }
  }

  /**
   * A TCP connection from the engine's host to `host:port`, as forwardOut, carried by a resident OpenSSH child
   * (`ssh -N -D`, openssh-socks.ts) when `openssh` names the `ssh` program: the tunnel's bytes are framed and
   * decrypted in ssh, not on core's event loop. ssh2's channel (forwardOut) carries it instead when there is no
   * `ssh`, when the child is not up (its first start waits at most SOCKS_START_WAIT_MS), and when the child's SOCKS
   * server closed without opening it (OpenSSH's SOCKS says no reason): ssh2's answer then tells a refused address
   * from a server that forwards nothing (ForwardRefused). A tunnel the child did not open in time is a timeout.
   */
  async tunnel(
    host: string,
    port: number,
    openssh: { binary: string; log: Logger } | null,
  ): Promise<{ stream: Duplex; carrier: TunnelCarrier }> {
    const socks = openssh && isIPv4(host) && !this.socksRefused ? await this.socksChild(openssh) : null;
    if (socks) {
      const started = await withinMs(socks.ready(), SOCKS_START_WAIT_MS).then(
        (ok) => ok,
        () => false,
      );
      if (started) {
        try {
          return { stream: await socks.connect(host, port, TUNNEL_OPEN_MS), carrier: 'openssh' };
        } catch (e) {
          // Its `reason: 'timeout'` is the dialer's: that engine's tunnels wait a while (ssh2 would stall the same).
          if (e instanceof SocksConnectFailed && e.reason === 'timeout') throw e;
        }
      }
    }
    try {
      return { stream: await this.forwardOut(host, port), carrier: 'ssh2' };
    } catch (e) {
      if (socks && e instanceof ForwardRefused && e.reason === 'prohibited') {
        this.socksRefused = true;
        this.socks?.dispose();
        this.socks = null;
      }
      throw e;
    }
  }

  /** The OpenSSH child for tunnels (started by its first connect), pinned to the key this connection verified. */
  private async socksChild(openssh: { binary: string; log: Logger }): Promise<OpenSshSocks | null> {
    if (this.socks) return this.socks;
    await this.connect();
    if (!this.hostKeyBlob || this.closed) return null;
    this.socks ??= new OpenSshSocks({
      binary: openssh.binary,
      host: this.target.host,
      port: this.target.port,
      username: this.target.username,
      privateKey: this.deps.privateKey,
      hostKey: this.hostKeyBlob,
      log: openssh.log,
    });
    return this.socks;
  }

  /** The OpenSSH child carrying tunnels, once one was asked (the bench reads its process). */
  get openSshTunnels(): OpenSshSocks | null {
    return this.socks;
  }

  /**
   * A remote forward: the remote host's `127.0.0.1:<port>` (loopback only, so no port opens on any
   * network) carried back over this connection to `to` on this machine. Asked again, on the same
   * port, each time the connection comes back. Returns the remote port.
   */
  async forwardIn(to: { host: string; port: number }): Promise<number> {
    for (const [port, target] of this.forwards)
      if (target.host === to.host && target.port === to.port) {
        await this.connect();
        return port;
      }
    const c = await this.connect();
    const port = await requestForward(c, 0);
    this.forwards.set(port, to);
    return port;
  }

  /**
   * The same remote forwards as forwardIn, carried by one OpenSSH `ssh -N -R` child process
   * (openssh-forward.ts) instead of this connection: each message is framed and decrypted in C, not
   * in core's event loop. The host key is the one this connection verified against the pin. Returns
   * the remote ports in the order of `to`; the forward lives until this connection is disposed (the
   * same targets asked again get the same forward, as forwardIn does).
   */
  async forwardInOpenSsh(to: ForwardTarget[], binary: string, log: Logger): Promise<number[]> {
    const key = JSON.stringify(to.map((t) => [t.host, t.port]));
    const known = this.openSsh.get(key);
    if (known) return known.ports;
    await this.connect();
    if (!this.hostKeyBlob) throw unreachable(new Error('no verified host key to pin'));
    const forward = new OpenSshForward(to, {
      binary,
      host: this.target.host,
      port: this.target.port,
      username: this.target.username,
      privateKey: this.deps.privateKey,
      hostKey: this.hostKeyBlob,
      log,
    });
    const ports = forward.start();
    this.openSsh.set(key, { forward, ports });
    ports.catch(() => {
      forward.dispose();
      if (this.openSsh.get(key)?.forward === forward) this.openSsh.delete(key);
    });
    return ports;
  }

  /** The OpenSSH forwards running (the bench reads their processes). */
  get openSshForwards(): OpenSshForward[] {
    return [...this.openSsh.values()].map((f) => f.forward);
  }

  /** Cuts the connection; the next channel reconnects (unless disposed). */
  drop(): void {
    this.client?.end();
    this.client = null;
    this.pending = null;
  }

  dispose(): void {
    this.closed = true;
    for (const f of this.openSsh.values()) f.forward.dispose();
    this.openSsh.clear();
    this.socks?.dispose();
    this.socks = null;
    this.drop();
  }

  private connect(): Promise<Client> {
    if (this.closed) return Promise.reject(unreachable(new Error('the engine connection is closed')));
    if (this.client) return Promise.resolve(this.client);
    if (this.pending) return this.pending;
    const attempt = this.open();
    this.pending = attempt;
    attempt.then(
      (c) => {
        if (this.pending === attempt) this.pending = null;
        this.client = c;
      },
      () => {
        if (this.pending === attempt) this.pending = null;
      },
    );
    return attempt;
  }

  private async open(): Promise<Client> {
    const privateKey = await this.deps.privateKey();
    return new Promise<Client>((resolve, reject) => {
      const c = new Client();
      let offered: string | null = null;
      let ready = false;
      c.once('ready', () => {
        ready = true;
        this.connects += 1;
        this.hostKeyFailure = null;
        // The forwards come back with the connection, on their ports (the remote side is told where they are).
        void Promise.all([...this.forwards.keys()].map((port) => requestForward(c, port).catch(() => 0))).then(() =>
          resolve(c),
        );
      });
      c.on('tcp connection', (info, accept, refuse) => {
        const to = this.forwards.get(info.destPort);
        if (!to) return refuse();
        const local = tcpConnect({ host: to.host, port: to.port, noDelay: true });
        const remote = accept();
        pipeline(remote, local, remote, () => undefined);
      });
      c.on('error', (e) => {
        if (ready) return;
        if (offered && offered !== this.deps.pinnedHostKey) {
          this.hostKeyFailure = hostKeyChanged(this.deps.pinnedHostKey, offered);
          reject(this.hostKeyFailure);
        } else reject(unreachable(e));
      });
      c.on('close', () => {
        if (!ready) reject(unreachable(new Error('the SSH connection closed during the handshake')));
        if (this.client === c) {
          this.client = null;
          this.deps.onDrop?.('the SSH connection closed');
        }
      });
      // Our own socket with Nagle off: without it every small request waits on delayed ACKs (~40 ms each way).
      const sock = tcpConnect({ host: this.target.host, port: this.target.port, noDelay: true });
      sock.once('error', (e) => {
        if (!ready) reject(unreachable(e));
      });
      c.connect({
        sock,
        username: this.target.username,
        privateKey,
        readyTimeout: READY_TIMEOUT_MS,
        // AES-GCM runs in Node's OpenSSL; ssh2's chacha20-poly1305 (poly1305 in WASM here) measured no less CPU per message.
        algorithms: { cipher: CIPHERS },
        keepaliveInterval: this.deps.keepaliveMs ?? 5000,
        keepaliveCountMax: 3,
        hostVerifier: (key: Buffer) => {
          offered = fingerprintOf(key);
          if (offered !== this.deps.pinnedHostKey) return false;
          this.hostKeyBlob = Buffer.from(key);
          return true;
        },
      });
    });
  }
}

/** Whether `p` settles within `ms` (its rejection is thrown). */
function withinMs(p: Promise<void>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), ms)));
  return Promise.race([p.then(() => true), late]).finally(() => clearTimeout(timer));
}

function requestForward(c: Client, port: number): Promise<number> {
  return new Promise((resolve, reject) =>
    c.forwardIn('127.0.0.1', port, (err, bound) => (err ? reject(unreachable(err)) : resolve(bound || port))),
  );
}

function openForward(c: Client, host: string, port: number): Promise<Duplex> {
  return new Promise((resolve, reject) => {
    try {
      // The originator's address is informational (sshd logs it); nothing listens there.
      c.forwardOut('127.0.0.1', 0, host, port, (err, stream) => {
        if (!err) return resolve(stream);
        const code = (err as { reason?: unknown }).reason;
        // A numeric reason is the server's CHANNEL_OPEN_FAILURE; without one the connection went away under the ask.
        if (typeof code !== 'number') return reject(unreachable(err));
        const description = err.message.replace(/^\(SSH\) Channel open failure: /, '');
        reject(new ForwardRefused(OPEN_FAILURE[code] ?? 'other', { host, port }, description));
      });
    } catch (e) {
      reject(unreachable(e));
    }
  });
}
