import { mkdtempSync, rmSync } from 'node:fs';
import type { Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { OpenSshChild, type OpenSshDeps } from './openssh-child';
import { socks5Connect } from './socks5-connect';

const TUNNEL_CIPHERS = [
  'aes128-gcm@openssh.com',
  'aes256-gcm@openssh.com',
  'aes128-ctr',
  'aes256-ctr',
  'chacha20-poly1305@openssh.com',
].join(',');

/** How long a start that failed keeps the tunnels on ssh2 before one is tried again. */
const RETRY_MS = 30_000;

/**
 * ssh's dynamic forward on a unix socket, not a TCP port: OpenSSH's SOCKS server takes no authentication (it offers
 * only "no authentication required"), so a port on 127.0.0.1 would let any local user reach every address the
 * engine's host reaches. The socket is made 0600 (StreamLocalBindMask) in a 0700 directory: core's user only.
 * A stale one left by a killed ssh is replaced at the next start (StreamLocalBindUnlink).
 */
export const socksForwardArgs = (path: string): string[] => [
  '-D',
  path,
  '-o',
  'StreamLocalBindMask=0177',
  '-o',
  'StreamLocalBindUnlink=yes',
  // AES-GCM first, as ssh2's connection asks (OpenSSH's default chacha20-poly1305 measured twice the CPU per byte).
  '-o',
  `Ciphers=${TUNNEL_CIPHERS}`,
];

/**
 * A remote engine's preview tunnels carried by OpenSSH: one `ssh -N -D <unix socket>` child per engine
 * (openssh-child.ts: pinned host key, key from the vault at each start, restarted with backoff), and each tunnel a
 * SOCKS5 CONNECT through it (socks5-connect.ts) to the container's address on the engine's host. The SSH framing
 * and decryption of a tunnel's bytes happen in ssh, not on core's event loop; core reads plain bytes from a unix
 * socket. Started at the first tunnel asked.
 */
export class OpenSshSocks {
  private readonly child: OpenSshChild;
  private readonly dir: string;
  /** The SOCKS listener: a unix socket only core's user may open. */
  readonly path: string;
  private up: Promise<void> | null = null;
  private retryAt = 0;

  constructor(private readonly deps: OpenSshDeps) {
    this.child = new OpenSshChild(deps, "the preview tunnels' SSH client");
    // mkdtemp makes the directory 0700.
    this.dir = mkdtempSync(join(tmpdir(), 'nexus-socks-'));
    this.path = join(this.dir, 'socks');
  }

  /** Starts (the first, then each restart): the bench and tests read it. */
  get starts(): number {
    return this.child.starts;
  }

  /** The wrapper shell's pid, ssh is its child (null: not running). */
  get pid(): number | null {
    return this.child.pid;
  }

  /** Resolves once ssh listens (at once when it does); rejects while a failed start waits to be tried again. */
  ready(): Promise<void> {
    if (this.up) return this.up;
    if (Date.now() < this.retryAt) return Promise.reject(new Error('the last start failed; tried again later'));
    const listening = `Local forwarding listening on path ${this.path}.`;
    const up = this.child
      .start(
        () => socksForwardArgs(this.path),
        () => (line) => (line.endsWith(listening) ? true : undefined),
      )
      .then(() => undefined);
    this.up = up;
    up.catch((e: unknown) => {
      this.deps.log.warn("the preview tunnels' SSH client did not start; ssh2's channel carries them meanwhile", {
        error: (e as Error).message,
      });
      this.retryAt = Date.now() + RETRY_MS;
      if (this.up === up) this.up = null;
    });
    return up;
  }

  /** A connection from the engine's host to `host:port` (an IPv4 address), once ssh's SSH server opened it. */
  async connect(host: string, port: number, timeoutMs: number): Promise<Socket> {
    await this.ready();
    return socks5Connect(this.path, host, port, timeoutMs);
  }

  dispose(): void {
    this.child.dispose();
    rmSync(this.dir, { recursive: true, force: true });
  }
}
