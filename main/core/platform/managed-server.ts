import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { errorMessage, NexusError } from '../../../shared/errors';
import { renderNatsConfig } from './nats-config';
import { userAuth } from './nats/auth';
import { NatsIdentity } from './nats/identity';
import { coreGrant, probeGrant, type NatsGrant, type NatsUser } from './permissions';
import { previousServerPid, readPreviousServer, stopPrevious } from './previous-server';

export interface ManagedNatsOptions {
  binary: string;
  host: string;
  /** 0 = the port this data dir used before, else a free one. */
  port: number;
  /** Where nats.conf, identity.json and users.json are written. */
  dir: string;
  /** Where leaf nodes (remote engines) dial in, on 127.0.0.1; absent = no leaf nodes. */
  leafPort?: number;
}

/**
 * What the server's owner hears after start: `unavailable` on an unexpected exit (a restart follows
 * unless it keeps dying) or when it could not be brought back, `running` once it is back.
 */
export type NatsLifecycle = (state: 'running' | 'unavailable', reason: string) => void;

/** Restarts after an unexpected exit: the waits before each attempt, and how many exits a minute are tolerated. */
const RESTART_WAITS_MS = [50, 250, 1_000, 2_000, 5_000];
const MAX_EXITS_PER_MINUTE = 5;

/**
 * A nats-server child with a generated config, in operator mode (nats/identity.ts): every user is
 * a JWT signed by Nexus's account, so adding a run's user touches no server at all. One per data
 * dir: a server left running by a core that was killed is found by its pid file and config,
 * stopped, and replaced on the same port with the same identity (its run and hook users' JWTs stay
 * valid; the killed core's own is revoked), so running sessions' hooks and nexus-mcp reconnect to
 * it. A server that dies under a running core is restarted the same way (same port, same users,
 * same core user), so core's own connection, nexus-mcp and the hook forwarders reconnect without a
 * relaunch. Removing users revokes them in the account JWT and reloads (SIGHUP); each reload also
 * revokes a fresh probe user, so we know the server has applied it when the probe is refused.
 */
export class ManagedNats {
  readonly url: string;
  readonly core: NatsUser;
  private child: ChildProcess | null = null;
  private accepted = new Map<string, NatsUser>();
  private generation = 0;
  private queue: Promise<void> = Promise.resolve();
  /** The user changes waiting for the next reload (null: none is waiting). */
  private next: { changes: (() => void)[]; done: Promise<void> } | null = null;
  private output = '';
  private exited = true;
  private stopping = false;
  private reviving: Promise<void> | null = null;
  private exits: number[] = [];
  private lifecycle: NatsLifecycle | null = null;
  private saving: Promise<void> | null = null;
  private readonly revocationListeners = new Set<() => void>();

  private constructor(
    private readonly opts: ManagedNatsOptions & { port: number },
    private readonly configFile: string,
    private readonly identity: NatsIdentity,
  ) {
    this.url = `nats://${opts.host}:${opts.port}`;
    this.core = identity.issue(coreGrant, null);
  }

  static async start(opts: ManagedNatsOptions): Promise<ManagedNats> {
    mkdirSync(opts.dir, { recursive: true, mode: 0o700 });
    const configFile = join(opts.dir, 'nats.conf');
    const identity = NatsIdentity.open(opts.dir);
    // New keys: no JWT a previous core issued can be valid, so none of its users is carried.
    const previous = readPreviousServer(opts.dir, identity.fresh);
    const orphan = previousServerPid(join(opts.dir, 'nats.pid'), opts.binary, configFile);
    if (orphan) await stopPrevious(orphan);
    // The data dir's port again; a server just stopped may hold it a moment longer.
    const reuse = previous && (await portFree(opts.host, previous.port, orphan ? 5_000 : 0));
    const port = opts.port || (reuse && previous ? previous.port : await freePort(opts.host));
    const leafPort = opts.leafPort === 0 ? await freePort('127.0.0.1') : opts.leafPort;
    const server = new ManagedNats({ ...opts, port, leafPort }, configFile, identity);
    (previous?.users ?? [])
      .filter((u) => !identity.revoked(u.publicKey))
      .forEach((u) => server.accepted.set(u.user, u));
    // The previous core's own user dies with it.
    if (previous?.core) identity.revoke([previous.core]);
    server.saveUsers();
    await server.launch();
    return server;
  }

  /** A user JWT for this grant, valid `ttlMs` (null: until removed); `addUsers` makes it one the server keeps. */
  issue(grant: NatsGrant, ttlMs: number | null): NatsUser {
    return this.identity.issue(grant, ttlMs);
  }

  /** A user that signs the server's nonce, as its creds file (a leaf node's remote credential). */
  issueCreds(grant: NatsGrant, ttlMs: number | null): { user: NatsUser; creds: string } {
    return this.identity.issueCreds(grant, ttlMs);
  }

  /** Core's leafnode port on 127.0.0.1 (null: leaf nodes are off). */
  get leafPort(): number | null {
    return this.opts.leafPort ?? null;
  }

  /**
   * Keeps issued users across restarts (users.json). The server already accepts them: their JWTs
   * are signed by the account it trusts, so no reload is needed. A replaced user is revoked.
   */
  addUsers(...users: NatsUser[]): Promise<void> {
    if (this.exited && !this.reviving)
      return Promise.reject(new NexusError('nats_unavailable', `nats-server has exited: ${this.tail()}`));
    const replaced = users.flatMap((u) => {
      const old = this.accepted.get(u.user);
      return old && old.publicKey !== u.publicKey ? [old] : [];
    });
    users.forEach((user) => this.accepted.set(user.user, user));
    const saved = this.saveSoon();
    return replaced.length ? saved.then(() => this.apply(() => this.identity.revoke(replaced))) : saved;
  }

  /** Runs started together share one write of users.json (the next turn of the event loop). */
  private saveSoon(): Promise<void> {
    this.saving ??= new Promise((resolve) =>
      setImmediate(() => {
        this.saving = null;
        this.saveUsers();
        resolve();
      }),
    );
    return this.saving;
  }

  /** Removes users: revoked in the account JWT; the server drops their open connections when it reloads. */
  removeUsers(...names: string[]): Promise<void> {
    return this.apply(() => {
      const gone = names.flatMap((n) => this.accepted.get(n) ?? []);
      names.forEach((n) => this.accepted.delete(n));
      this.saveUsers();
      this.identity.revoke(gone);
    });
  }

  /**
   * After each reload that revoked users (this server has applied it): the account JWT changed, so
   * servers that trust it too (remote engines' leaf nodes) must load it again to drop those users.
   */
  onRevoked(listener: () => void): { dispose(): void } {
    this.revocationListeners.add(listener);
    return { dispose: () => void this.revocationListeners.delete(listener) };
  }

  /** The operator and account JWTs a trusting server (a leaf node) is configured with; no secret. */
  get trust(): { operatorJwt: string; account: string; accountJwt: string } {
    return {
      operatorJwt: this.identity.operatorJwt,
      account: this.identity.account,
      accountJwt: this.identity.accountJwt(),
    };
  }

  /** The one address the server listens on. */
  get host(): string {
    return this.opts.host;
  }

  /** The run and hook users it accepts now (not core's own, not the reload probes). */
  get users(): NatsUser[] {
    return [...this.accepted.values()];
  }

  get pid(): number | undefined {
    return this.child?.pid;
  }

  get running(): boolean {
    return !this.exited;
  }

  /** Follows the server after start: exits it did not ask for, restarts, giving up. One listener. */
  watch(lifecycle: NatsLifecycle): void {
    this.lifecycle = lifecycle;
  }

  async stop(): Promise<void> {
    this.stopping = true;
    await this.reviving;
    const child = this.child;
    if (this.exited || !child) return;
    const gone = new Promise<void>((r) => child.once('exit', () => r()));
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
    await gone;
    clearTimeout(timer);
  }

  /** Writes the config, starts the child and waits until it accepts core's user. */
  private async launch(): Promise<void> {
    this.writeConfig();
    const child = spawn(this.opts.binary, ['-c', this.configFile], { stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout?.on('data', (d: Buffer) => this.keep(d));
    child.stderr?.on('data', (d: Buffer) => this.keep(d));
    try {
      await new Promise<void>((resolve, reject) => {
        child.once('spawn', resolve);
        child.once('error', reject);
      });
    } catch (e) {
      const code = (e as { code?: string }).code;
      throw new NexusError(
        'nats_unavailable',
        code === 'ENOENT'
          ? `nats-server was not found ("${this.opts.binary}"). Install the nats-server package or set nats.binary to its path.`
          : `nats-server could not be started: ${(e as Error).message}`,
      );
    }
    this.child = child;
    this.exited = false;
    child.once('exit', (code, signal) => this.onExit(child, `nats-server exited (${signal ?? `code ${code}`})`));
    try {
      await this.waitFor(this.core, 'accepted', 10_000);
    } catch (e) {
      if (!this.exited) child.kill('SIGKILL');
      throw e;
    }
  }

  private onExit(child: ChildProcess, how: string): void {
    if (child !== this.child) return;
    this.exited = true;
    // A launch in progress (start or a restart) sees the exit itself.
    if (this.stopping || this.reviving || !this.lifecycle) return;
    const detail = `${how}: ${this.tail()}`;
    this.lifecycle('unavailable', `${detail} Restarting it.`);
    this.reviving = this.revive(detail).finally(() => (this.reviving = null));
  }

  /** Brings an exited server back on its port with its users; gives up after the waits or too many exits. */
  private async revive(detail: string): Promise<void> {
    const now = Date.now();
    this.exits = [...this.exits.filter((t) => now - t < 60_000), now];
    if (this.exits.length > MAX_EXITS_PER_MINUTE) {
      this.lifecycle?.('unavailable', `${detail} It exited ${this.exits.length} times within a minute; not restarted.`);
      return;
    }
    let last = detail;
    for (const wait of RESTART_WAITS_MS) {
      await new Promise((r) => setTimeout(r, wait));
      if (this.stopping) return;
      try {
        if (!(await portFree(this.opts.host, this.opts.port, 2_000)))
          throw new Error(`port ${this.opts.port} on ${this.opts.host} is taken by another process`);
        await this.launch();
        this.lifecycle?.('running', `nats-server on ${this.url} (restarted after it exited).`);
        return;
      } catch (e) {
        last = errorMessage(e);
      }
    }
    this.lifecycle?.('unavailable', `nats-server could not be restarted: ${last}`);
  }

  private writeConfig(): void {
    const { host, port, dir, leafPort } = this.opts;
    const { operatorJwt, account, accountJwt } = this.trust;
    const config = renderNatsConfig({
      host,
      port,
      pidFile: join(dir, 'nats.pid'),
      operatorJwt,
      account,
      accountJwt,
      leafPort,
    });
    writeFileSync(this.configFile, config, { mode: 0o600 });
  }

  /** The live run and hook users and core's own, so the next core carries them or revokes its predecessor's. */
  private saveUsers(): void {
    const file = join(this.opts.dir, 'users.json');
    const { publicKey, exp } = this.core;
    const body = JSON.stringify({ core: { publicKey, exp }, users: [...this.accepted.values()] }, null, 2);
    writeFileSync(`${file}.tmp`, body, { mode: 0o600 });
    renameSync(`${file}.tmp`, file);
  }

  private apply(change: () => void): Promise<void> {
    // Changes that arrive while a reload is under way share the next one (sessions created together
    // add their run users in one reload, not one each).
    if (this.next) {
      this.next.changes.push(change);
      return this.next.done;
    }
    const batch = { changes: [change], done: Promise.resolve() };
    this.next = batch;
    batch.done = this.queue.then(async () => {
      if (this.next === batch) this.next = null;
      // A restart under way comes back with the users as they are: wait for it, then change them.
      await this.reviving;
      if (this.exited) throw new NexusError('nats_unavailable', `nats-server has exited: ${this.tail()}`);
      // Valid at once (signed by the account), refused once the server has loaded this revocation.
      const probe = this.identity.issue(probeGrant(++this.generation), 60_000);
      batch.changes.forEach((c) => c());
      this.identity.revoke([probe]);
      this.writeConfig();
      this.child?.kill('SIGHUP');
      await this.waitFor(probe, 'refused', 10_000);
      for (const l of this.revocationListeners)
        try {
          l();
        } catch {
          // a listener's own failure is its own (it logs); the reload is done
        }
    });
    this.queue = batch.done.catch(() => undefined);
    return batch.done;
  }

  /** Until the running server accepts this user (it has started) or refuses it (it has loaded its revocation). */
  private async waitFor(user: NatsUser, outcome: 'accepted' | 'refused', timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      if (this.exited) throw new NexusError('nats_unavailable', `nats-server exited: ${this.tail()}`);
      let result: 'accepted' | 'refused' | 'unreachable';
      try {
        const nc = await connect({ servers: this.url, ...userAuth(user.password), reconnect: false, timeout: 1_000 });
        await nc.close();
        result = 'accepted';
      } catch (e) {
        result = /authoriz|revoked/i.test(String(e)) ? 'refused' : 'unreachable';
      }
      if (result === outcome) return;
      if (Date.now() > deadline)
        throw new NexusError(
          'nats_unavailable',
          `nats-server did not accept its configuration in time: ${this.tail()}`,
        );
      await new Promise((r) => setTimeout(r, 20));
    }
  }

  private keep(d: Buffer): void {
    this.output = (this.output + d.toString()).slice(-4_000);
  }

  private tail(): string {
    return this.output.trim().split('\n').slice(-3).join(' | ') || 'no output';
  }
}

/**
 * Resolves once `nc` has a round trip with its server again (after a restart: its subscriptions are
 * re-sent before the ping), or when `still()` turns false. A ping sent while it reconnects is dropped
 * with the rest of its buffer, so it asks again.
 */
export async function connectionBack(nc: NatsConnection, still: () => boolean): Promise<void> {
  while (still() && !nc.isClosed()) {
    try {
      await nc.flush();
      return;
    } catch {
      await new Promise((r) => setTimeout(r, 50));
    }
  }
}

async function portFree(host: string, port: number, waitMs: number): Promise<boolean> {
  const deadline = Date.now() + waitMs;
  for (;;) {
    const free = await new Promise<boolean>((resolve) => {
      const s = createServer();
      s.once('error', () => resolve(false));
      s.listen(port, host, () => s.close(() => resolve(true)));
    });
    if (free || Date.now() > deadline) return free;
    await new Promise((r) => setTimeout(r, 50));
  }
}

function freePort(host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, host, () => {
      const addr = s.address();
      const port = typeof addr === 'object' && addr ? addr.port : 0;
      s.close(() => resolve(port));
    });
  });
}
