import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { connect } from '@nats-io/transport-node';
import { NexusError } from '../../../shared/errors';
import { renderNatsConfig } from './nats-config';
import { coreUser, probeUser, type NatsUser } from './permissions';
import { previousServerPid, readPreviousConfig, stopPrevious } from './previous-server';

export interface ManagedNatsOptions {
  binary: string;
  host: string;
  /** 0 = the port this data dir used before, else a free one. */
  port: number;
  /** Where nats.conf is written. */
  dir: string;
}

/**
 * A nats-server child with a generated config. One per data dir: a server left running by a core
 * that was killed is found by its pid file and config, stopped, and replaced on the same port with
 * the same run and hook users, so running sessions' hooks and nexus-mcp reconnect to it. Users are rewritten and reloaded (SIGHUP) as runs
 * come and go; each reload adds a fresh probe user so we know when the server has applied it.
 */
export class ManagedNats {
  readonly url: string;
  readonly core: NatsUser;
  private accepted = new Map<string, NatsUser>();
  private generation = 0;
  private queue: Promise<void> = Promise.resolve();
  private output = '';
  private exited = false;
  private stopping = false;

  private constructor(
    private readonly child: ChildProcess,
    private readonly opts: ManagedNatsOptions & { port: number },
    private readonly configFile: string,
    core: NatsUser,
  ) {
    this.url = `nats://${opts.host}:${opts.port}`;
    this.core = core;
    child.stdout?.on('data', (d: Buffer) => this.keep(d));
    child.stderr?.on('data', (d: Buffer) => this.keep(d));
    child.once('exit', () => (this.exited = true));
  }

  static async start(opts: ManagedNatsOptions): Promise<ManagedNats> {
    mkdirSync(opts.dir, { recursive: true, mode: 0o700 });
    const configFile = join(opts.dir, 'nats.conf');
    const pidFile = join(opts.dir, 'nats.pid');
    const previous = readPreviousConfig(configFile);
    const orphan = previousServerPid(pidFile, opts.binary, configFile);
    if (orphan) await stopPrevious(orphan);
    // The data dir's port again; a server just stopped may hold it a moment longer.
    const reuse = previous && (await portFree(opts.host, previous.port, orphan ? 5_000 : 0));
    const port = opts.port || (reuse && previous ? previous.port : await freePort(opts.host));
    const carried = previous?.users ?? [];
    const core = coreUser(randomBytes(24).toString('base64url'));
    const probe = probeUser(0, randomBytes(16).toString('base64url'));
    writeFileSync(configFile, renderNatsConfig({ host: opts.host, port, pidFile, users: [core, ...carried, probe] }), {
      mode: 0o600,
    });
    const child = spawn(opts.binary, ['-c', configFile], { stdio: ['ignore', 'pipe', 'pipe'] });
    const spawned = new Promise<void>((resolve, reject) => {
      child.once('spawn', resolve);
      child.once('error', reject);
    });
    try {
      await spawned;
    } catch (e) {
      const code = (e as { code?: string }).code;
      throw new NexusError(
        'nats_unavailable',
        code === 'ENOENT'
          ? `nats-server was not found ("${opts.binary}"). Install the nats-server package or set nats.binary to its path.`
          : `nats-server could not be started: ${(e as Error).message}`,
      );
    }
    const server = new ManagedNats(child, { ...opts, port }, configFile, core);
    carried.forEach((u) => server.accepted.set(u.user, u));
    try {
      await server.waitForUser(probe, 10_000);
    } catch (e) {
      await server.stop();
      throw e;
    }
    return server;
  }

  /** Adds or replaces users and waits until the running server accepts them. */
  addUsers(...users: NatsUser[]): Promise<void> {
    return this.apply(() => users.forEach((u) => this.accepted.set(u.user, u)));
  }

  /** Removes users; the server drops their open connections when it reloads. */
  removeUsers(...names: string[]): Promise<void> {
    return this.apply(() => names.forEach((n) => this.accepted.delete(n)));
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
    return this.child.pid;
  }

  get running(): boolean {
    return !this.exited;
  }

  /** Called when the child exits without stop() having been asked for, with the last lines it printed. */
  onUnexpectedExit(listener: (detail: string) => void): void {
    this.child.once('exit', (code, signal) => {
      if (!this.stopping) listener(`nats-server exited (${signal ?? `code ${code}`}): ${this.tail()}`);
    });
  }

  async stop(): Promise<void> {
    this.stopping = true;
    if (this.exited) return;
    const gone = new Promise<void>((r) => this.child.once('exit', () => r()));
    this.child.kill('SIGTERM');
    const timer = setTimeout(() => this.child.kill('SIGKILL'), 5_000);
    await gone;
    clearTimeout(timer);
  }

  private apply(change: () => void): Promise<void> {
    const next = this.queue.then(async () => {
      if (this.exited) throw new NexusError('nats_unavailable', `nats-server has exited: ${this.tail()}`);
      change();
      const probe = probeUser(++this.generation, randomBytes(16).toString('base64url'));
      writeFileSync(
        this.configFile,
        renderNatsConfig({
          host: this.opts.host,
          port: this.opts.port,
          pidFile: join(this.opts.dir, 'nats.pid'),
          users: [this.core, ...this.accepted.values(), probe],
        }),
        { mode: 0o600 },
      );
      this.child.kill('SIGHUP');
      await this.waitForUser(probe, 10_000);
    });
    this.queue = next.catch(() => undefined);
    return next;
  }

  private async waitForUser(user: NatsUser, timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      if (this.exited) throw new NexusError('nats_unavailable', `nats-server exited: ${this.tail()}`);
      try {
        const nc = await connect({
          servers: this.url,
          user: user.user,
          pass: user.password,
          reconnect: false,
          timeout: 1_000,
        });
        await nc.close();
        return;
      } catch {
        if (Date.now() > deadline)
          throw new NexusError(
            'nats_unavailable',
            `nats-server did not accept its configuration in time: ${this.tail()}`,
          );
        await new Promise((r) => setTimeout(r, 20));
      }
    }
  }

  private keep(d: Buffer): void {
    this.output = (this.output + d.toString()).slice(-4_000);
  }

  private tail(): string {
    return this.output.trim().split('\n').slice(-3).join(' | ') || 'no output';
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
