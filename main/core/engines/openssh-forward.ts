import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { NexusError } from '../../../shared/errors';
import type { Logger } from '../log';

export interface ForwardTarget {
  host: string;
  port: number;
}

export interface OpenSshForwardDeps {
  /** The `ssh` program (OpenSSH). */
  binary: string;
  host: string;
  port: number;
  username: string;
  /** The private key (PEM/OpenSSH), from the vault, at each start. */
  privateKey: () => Promise<string>;
  /** The pinned host key's wire blob, as the pinned-and-verified ssh2 connection saw it. */
  hostKey: Buffer;
  log: Logger;
}

const READY_MS = 15_000;
const ALIAS = 'nexus-engine';
/** How long after an unplanned exit the forward is asked again (doubling up to the last). */
const BACKOFF_MS = [500, 1000, 2000, 5000, 10_000];

/** `<type> <base64>` of a host key blob (its first field names its type), as known_hosts wants it. */
export function knownHostsLine(alias: string, blob: Buffer): string {
  const len = blob.length >= 4 ? blob.readUInt32BE(0) : 0;
  const type = len < blob.length - 4 ? blob.subarray(4, 4 + len).toString('latin1') : '';
  if (!/^[a-z0-9@.-]{3,64}$/i.test(type)) throw new NexusError('internal', 'the pinned host key has no readable type');
  return `${alias} ${type} ${blob.toString('base64')}\n`;
}

/**
 * Core's end of a remote engine's leaf link as OpenSSH's own `ssh -N -R` (a child process per
 * engine), instead of ssh2's forward in core's process: OpenSSH frames and decrypts each forwarded
 * message in C, so a NATS message from the engine no longer costs core's event loop the SSH work.
 * The remote side is the same as ssh2's: `127.0.0.1:<port>` on the remote host only (no port on any
 * network). The host key is pinned exactly as strongly: a known_hosts file holding only the pinned
 * key (written from the blob the pinned ssh2 connection verified), strict checking, no user or
 * system ssh config, no agent, no other identity. The private key is a 0600 file in a 0700 temp
 * dir, removed as soon as ssh has authenticated (and again at exit). ssh runs under a small shell
 * that kills it when core's pipe to it closes, so a killed core leaves no forward behind. An
 * unplanned exit (the link cut) is asked again on the same ports, with backoff.
 */
export class OpenSshForward {
  private child: ChildProcess | null = null;
  private ports: number[] = [];
  private closed = false;
  private failures = 0;
  private timer: NodeJS.Timeout | null = null;
  /** Starts (the first, then each restart): the bench and tests read it. */
  starts = 0;

  constructor(
    private readonly targets: ForwardTarget[],
    private readonly deps: OpenSshForwardDeps,
  ) {}

  /** The remote ports, in the order of the targets, once every forward is up. */
  async start(): Promise<number[]> {
    this.ports = await this.run(this.targets.map(() => 0));
    return this.ports;
  }

  /** The wrapper shell's pid, ssh is its child (null: not running): the bench reads their CPU. */
  get pid(): number | null {
    return this.child?.pid ?? null;
  }

  dispose(): void {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    if (this.child) stop(this.child);
    this.child = null;
  }

  private async run(ports: number[]): Promise<number[]> {
    const key = await this.deps.privateKey();
    const dir = mkdtempSync(join(tmpdir(), 'nexus-fwd-'));
    const keyFile = join(dir, 'id');
    const known = join(dir, 'known_hosts');
    writeFileSync(keyFile, key.endsWith('\n') ? key : `${key}\n`, { mode: 0o600 });
    writeFileSync(known, knownHostsLine(ALIAS, this.deps.hostKey), { mode: 0o600 });
    let cleaned = false;
    const clean = (): void => {
      if (cleaned) return;
      cleaned = true;
      rmSync(dir, { recursive: true, force: true });
    };
    const { host, port, username } = this.deps;
    const args = [
      '-F',
      'none',
      '-N',
      '-T',
      ...[
        'BatchMode=yes',
        'StrictHostKeyChecking=yes',
        `UserKnownHostsFile=${known}`,
        'GlobalKnownHostsFile=none',
        `HostKeyAlias=${ALIAS}`,
        'UpdateHostKeys=no',
        'CheckHostIP=no',
        'IdentitiesOnly=yes',
        'IdentityAgent=none',
        'ControlMaster=no',
        'ControlPath=none',
        'PermitLocalCommand=no',
        'ExitOnForwardFailure=yes',
        'ServerAliveInterval=5',
        'ServerAliveCountMax=3',
        'ConnectTimeout=10',
        // Its progress lines (authenticated, each forward's reply) say when the forward is up.
        'LogLevel=DEBUG1',
      ].flatMap((o) => ['-o', o]),
      '-i',
      keyFile,
      '-p',
      String(port),
      '-l',
      username,
      ...this.targets.flatMap((t, i) => ['-R', `127.0.0.1:${ports[i] ?? 0}:${t.host}:${t.port}`]),
      '--',
      host,
    ];
    // fd 3 is core's pipe: when it closes (core exited, however), the shell kills ssh.
    const wrapper =
      'exec 3<&0; "$0" "$@" </dev/null & p=$!; { read -r _ <&3; kill $p 2>/dev/null; } & w=$!; wait $p; s=$?; kill $w 2>/dev/null; exit $s';
    const child = spawn('sh', ['-c', wrapper, this.deps.binary, ...args], { stdio: ['pipe', 'ignore', 'pipe'] });
    this.child = child;
    this.starts += 1;
    let tail = '';
    const allocated = [...ports];
    return new Promise<number[]>((resolve, reject) => {
      let ready = false;
      const timer = setTimeout(() => {
        if (ready) return;
        stop(child);
        reject(this.failed(`no answer in ${READY_MS / 1000} s`, tail));
      }, READY_MS);
      child.stderr?.setEncoding('utf8');
      let partial = '';
      child.stderr?.on('data', (chunk: string) => {
        tail = `${tail}${chunk}`.slice(-4000);
        const lines = `${partial}${chunk}`.split('\n');
        partial = (lines.pop() ?? '').slice(-1000);
        for (const line of lines) {
          if (/^Authenticated to /.test(line)) clean();
          const m = /^Allocated port (\d+) for remote forward to (.+):(\d+)$/.exec(line.trim());
          if (m) {
            const i = this.targets.findIndex(
              (t, j) => allocated[j] === 0 && t.host === m[2] && t.port === Number(m[3]),
            );
            if (i >= 0) allocated[i] = Number(m[1]);
          }
          if (!ready && /forwarding_success: all expected forwarding replies received/.test(line)) {
            ready = true;
            clearTimeout(timer);
            this.failures = 0;
            if (allocated.some((p) => p === 0)) {
              stop(child);
              reject(this.failed('a forward got no port', tail));
            } else resolve(allocated);
          }
        }
      });
      child.once('error', (e) => {
        clean();
        clearTimeout(timer);
        if (!ready) reject(this.failed(e.message, tail));
      });
      child.once('exit', (code) => {
        clean();
        clearTimeout(timer);
        if (this.child === child) this.child = null;
        if (!ready) return reject(this.failed(`ssh exited ${code ?? 'on a signal'}`, tail));
        if (this.closed) return;
        this.deps.log.warn('the leaf forward (ssh) exited; asking again', { code, detail: lastLines(tail) });
        this.again();
      });
    });
  }

  /** After the link dropped: the same ports again, with backoff, until disposed. */
  private again(): void {
    const wait = BACKOFF_MS[Math.min(this.failures, BACKOFF_MS.length - 1)] ?? 10_000;
    this.failures += 1;
    this.timer = setTimeout(() => {
      this.timer = null;
      if (this.closed) return;
      this.run(this.ports).then(
        () => undefined,
        (e: unknown) => {
          this.deps.log.warn('the leaf forward (ssh) did not come back yet', { error: (e as Error).message });
          if (!this.closed && !this.child) this.again();
        },
      );
    }, wait);
  }

  private failed(why: string, tail: string): NexusError {
    const refused = /Host key verification failed|REMOTE HOST IDENTIFICATION HAS CHANGED|has changed/.test(tail);
    return new NexusError(
      refused ? 'host_key_changed' : 'unavailable',
      `The leaf link's SSH forward did not come up (${why})${refused ? ': the host key is not the pinned one' : ''}: ${lastLines(tail)}`,
    );
  }
}

/** Closes core's pipe to the wrapper: it kills ssh, then exits (a signal to the shell would leave ssh running). */
const stop = (child: ChildProcess): void => void child.stdin?.end();

/** The last lines of ssh's log that are not its debug chatter (no key or secret is ever in them). */
const lastLines = (tail: string): string =>
  tail
    .split('\n')
    .filter((l) => l.trim() && !l.startsWith('debug1:'))
    .slice(-3)
    .join(' | ')
    .slice(0, 500);
