import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { NexusError } from '../../../shared/errors';
import type { Logger } from '../log';

/** How core signs in with OpenSSH's `ssh` to an engine its ssh2 connection already verified. */
export interface OpenSshDeps {
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

/**
 * Reads ssh's log lines while it starts: what the start resolves with once the child is ready, an Error when it
 * cannot be (ssh is stopped), undefined to read on. A new one per start (it may keep state across lines).
 */
export type StartWatch<T> = (line: string) => T | Error | undefined;

const READY_MS = 15_000;
const ALIAS = 'nexus-engine';
/** How long after an unplanned exit ssh is started again (doubling up to the last). */
const BACKOFF_MS = [500, 1000, 2000, 5000, 10_000];

/** `<type> <base64>` of a host key blob (its first field names its type), as known_hosts wants it. */
export function knownHostsLine(alias: string, blob: Buffer): string {
  const len = blob.length >= 4 ? blob.readUInt32BE(0) : 0;
  const type = len < blob.length - 4 ? blob.subarray(4, 4 + len).toString('latin1') : '';
  if (!/^[a-z0-9@.-]{3,64}$/i.test(type)) throw new NexusError('internal', 'the pinned host key has no readable type');
  return `${alias} ${type} ${blob.toString('base64')}\n`;
}

/**
 * ssh's arguments: pinned to the one known host key (strict checking, no user or system config, no agent, no other
 * identity, no control socket), then the forwards, then the host. `LogLevel=DEBUG1` because its progress lines
 * (authenticated, each forward's listener or reply) say when it is up.
 */
export function openSshArgs(
  d: Pick<OpenSshDeps, 'host' | 'port' | 'username'>,
  files: { keyFile: string; knownHosts: string },
  forwards: string[],
): string[] {
  return [
    '-F',
    'none',
    '-N',
    '-T',
    ...[
      'BatchMode=yes',
      'StrictHostKeyChecking=yes',
      `UserKnownHostsFile=${files.knownHosts}`,
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
      'LogLevel=DEBUG1',
    ].flatMap((o) => ['-o', o]),
    '-i',
    files.keyFile,
    '-p',
    String(d.port),
    '-l',
    d.username,
    ...forwards,
    '--',
    d.host,
  ];
}

/**
 * One OpenSSH `ssh -N` child process to a remote engine, carrying forwards in C instead of ssh2 in core's event loop.
 * The host key is pinned exactly as strongly as ssh2's connection: a known_hosts file holding only the pinned key
 * (written from the blob the pinned ssh2 connection verified) and openSshArgs' options. The private key is a 0600 file
 * in a 0700 temp dir, removed as soon as ssh has authenticated (and again at exit). ssh runs under a small shell that
 * kills it when core's pipe to it closes, so a killed core leaves no ssh behind. An unplanned exit (the link cut) is
 * started again with the forwards of that moment, with backoff, until disposed.
 */
export class OpenSshChild {
  private child: ChildProcess | null = null;
  private closed = false;
  private failures = 0;
  private timer: NodeJS.Timeout | null = null;
  /** Starts (the first, then each restart): the bench and tests read it. */
  starts = 0;

  constructor(
    private readonly deps: OpenSshDeps,
    /** What it is, in its log lines and errors: "the leaf link's SSH forward". */
    private readonly what: string,
  ) {}

  /** The wrapper shell's pid, ssh is its child (null: not running): the bench reads their CPU. */
  get pid(): number | null {
    return this.child?.pid ?? null;
  }

  get running(): boolean {
    return this.child !== null;
  }

  dispose(): void {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    if (this.child) stop(this.child);
    this.child = null;
  }

  /**
   * Starts ssh with `forwards()`'s arguments; resolves with what `watch()` reads in its log once it is up. After an
   * unplanned exit it is started again (with `forwards()` asked again), until disposed.
   */
  start<T>(forwards: () => string[], watch: () => StartWatch<T>): Promise<T> {
    if (this.closed) return Promise.reject(new NexusError('unavailable', `${this.what} is closed`));
    return this.run(forwards, watch);
  }

  private async run<T>(forwards: () => string[], watch: () => StartWatch<T>): Promise<T> {
    const key = await this.deps.privateKey();
    const dir = mkdtempSync(join(tmpdir(), 'nexus-fwd-'));
    const keyFile = join(dir, 'id');
    const knownHosts = join(dir, 'known_hosts');
    writeFileSync(keyFile, key.endsWith('\n') ? key : `${key}\n`, { mode: 0o600 });
    writeFileSync(knownHosts, knownHostsLine(ALIAS, this.deps.hostKey), { mode: 0o600 });
    let cleaned = false;
    const clean = (): void => {
      if (cleaned) return;
      cleaned = true;
      rmSync(dir, { recursive: true, force: true });
    };
    const args = openSshArgs(this.deps, { keyFile, knownHosts }, forwards());
    // fd 3 is core's pipe: when it closes (core exited, however), the shell kills ssh.
    const wrapper =
      'exec 3<&0; "$0" "$@" </dev/null & p=$!; { read -r _ <&3; kill $p 2>/dev/null; } & w=$!; wait $p; s=$?; kill $w 2>/dev/null; exit $s';
    const child = spawn('sh', ['-c', wrapper, this.deps.binary, ...args], { stdio: ['pipe', 'ignore', 'pipe'] });
    this.child = child;
    this.starts += 1;
    const read = watch();
    let tail = '';
    return new Promise<T>((resolve, reject) => {
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
          if (ready) continue;
          const got = read(line.trim());
          if (got === undefined) continue;
          ready = true;
          clearTimeout(timer);
          if (got instanceof Error) {
            stop(child);
            reject(this.failed(got.message, tail));
          } else {
            this.failures = 0;
            resolve(got);
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
        this.deps.log.warn(`${this.what} exited; asking again`, { code, detail: lastLines(tail) });
        this.again(forwards, watch);
      });
    });
  }

  /** After the link dropped: started again, with backoff, until disposed. */
  private again<T>(forwards: () => string[], watch: () => StartWatch<T>): void {
    const wait = BACKOFF_MS[Math.min(this.failures, BACKOFF_MS.length - 1)] ?? 10_000;
    this.failures += 1;
    this.timer = setTimeout(() => {
      this.timer = null;
      if (this.closed) return;
      this.run(forwards, watch).then(
        () => undefined,
        (e: unknown) => {
          this.deps.log.warn(`${this.what} did not come back yet`, { error: (e as Error).message });
          if (!this.closed && !this.child) this.again(forwards, watch);
        },
      );
    }, wait);
  }

  private failed(why: string, tail: string): NexusError {
    const refused = /Host key verification failed|REMOTE HOST IDENTIFICATION HAS CHANGED|has changed/.test(tail);
    const what = this.what.charAt(0).toUpperCase() + this.what.slice(1);
    return new NexusError(
      refused ? 'host_key_changed' : 'unavailable',
      `${what} did not come up (${why})${refused ? ': the host key is not the pinned one' : ''}: ${lastLines(tail)}`,
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
