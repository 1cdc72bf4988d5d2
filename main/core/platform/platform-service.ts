import { join } from 'node:path';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { NexusError } from '../../../shared/errors';
import { subjects } from '../../../shared/platform-tools';
import type { StatusBoard } from '../app';
import type { AuditLog } from '../audit';
import type { DockerConfig } from '../docker';
import type { NatsConfig } from './config';
import type { Disposable } from '../disposable';
import type { Logger } from '../log';
import type { Redactor } from '../redact';
import type { ReviewQueue } from './review/review-queue';
import type { Db } from '../store';
import { connectionBack, ManagedNats } from './managed-server';
import { relayCheckpoint } from './checkpoint-relay';
import { relayMessage } from './message-relay';
import type { NatsUser } from './permissions';
import { jwtSecret, userAuth } from './nats/auth';
import type { NatsTrust } from './nats/leaf-node';
import { AgentStore, type Agent } from './store/agents';
import { BoardStore } from './store/board';
import { RunStore, type RunStatus } from './store/runs';
import { TaskStore, type NewTask, type Task } from './store/tasks';
import { ToolRouter } from './tool-router';
import { CallerLookup } from './caller-lookup';
import { BoardFeed } from './board-feed';
import { BoardMirrorSlot } from './board-mirror';
import { externalRefusal } from './external-server';
import { NatsSubscriptions, type HookEvent, type PermissionAskHandler } from './nats-subscriptions';
import { NatsUsers, type IssuedUser } from './nats-users';

export type { HookEvent } from './nats-subscriptions';

/** What a worker needs to call platform tools as one run (handed to nexus-mcp through its env). */
export interface RunCredentials {
  runId: string;
  natsUrl: string;
  /** The run's NATS user name (null only for a server without users, which Nexus refuses to use). */
  user: string | null;
  /** Its secret: the run's bearer user JWT (nats/identity.ts). */
  password: string | null;
  inboxPrefix: string;
  subject: string;
}

export interface HookCredentials {
  workspaceId: string;
  natsUrl: string;
  user: string | null;
  password: string | null;
  subject: string;
}

/**
 * Platform tools over NATS: runs the managed nats-server (an external one is refused), serves
 * `tools.invoke.<runId>` and `nexus.hooks.<workspaceId>` (nats-subscriptions.ts), and issues per-run
 * NATS users (nats-users.ts). Exposed as `core.platform` for the sessions feature.
 */
export class PlatformService implements Disposable {
  readonly agents: AgentStore;
  readonly runs: RunStore;
  readonly tasks: TaskStore;
  readonly board: BoardStore;
  readonly router: ToolRouter;
  readonly feed = new BoardFeed();
  /** Where the board is mirrored (the tracker fills it). */
  readonly mirror = new BoardMirrorSlot();
  private server: ManagedNats | null = null;
  private nc: NatsConnection | null = null;
  private natsUrl: string | null = null;
  /** False while the managed server sits on 127.0.0.1 only because the workers' address is not known yet. */
  private workersReach = true;
  private readonly subscriptions: NatsSubscriptions;
  private readonly users: NatsUsers;
  /** Where a workspace's workers reach NATS when not at core's server (a remote engine's leaf node). */
  private workerUrlOf: ((workspaceId: string) => Promise<string | null>) | null = null;
  /** Told when the account JWT gained revocations (core's server has applied them): leaf nodes reload it. */
  private readonly trustListeners = new Set<() => void>();

  constructor(
    private readonly deps: {
      db: Db;
      config: { nats: NatsConfig; docker: Pick<DockerConfig, 'network'> };
      dataDir: string;
      status: StatusBoard;
      redactor: Redactor;
      log: Logger;
      audit: AuditLog;
      review: ReviewQueue;
    },
  ) {
    this.agents = new AgentStore(deps.db);
    this.runs = new RunStore(deps.db);
    this.tasks = new TaskStore(deps.db, this.mirror);
    this.board = new BoardStore(deps.db, this.mirror);
    deps.review.memories.compact();
    this.runs.compact();
    this.router = new ToolRouter(
      new CallerLookup(deps.db, this.runs, this.agents),
      {
        runs: this.runs,
        tasks: this.tasks,
        board: this.board,
        review: deps.review,
        feed: this.feed,
        mirror: this.mirror,
      },
      deps.redactor,
      deps.audit,
      deps.log,
    );
    this.subscriptions = new NatsSubscriptions({ router: this.router, log: deps.log });
    this.users = new NatsUsers({ redactor: deps.redactor, server: () => this.server });
  }

  /**
   * Starts NATS and the subscriptions. Never throws: a missing server is reported as state `unavailable`.
   * `workerHost` is where workers reach the host (see docker/network.ts); the managed server
   * listens there and nowhere else. Null when Docker did not answer: the server starts on 127.0.0.1
   * and `moveTo` brings it to the workers' address once it is known.
   */
  async start(workerHost: string | null): Promise<void> {
    const { nats } = this.deps.config;
    if (nats.url) {
      this.runs.failOrphans([]);
      // Nexus can create per-run users only on the server it runs (see docs/platform-tools.md).
      const reason = externalRefusal(nats.url);
      this.deps.log.warn('platform tools refused on an external NATS server', { reason });
      this.deps.status.set('nats', { state: 'unavailable', reason });
      return;
    }
    this.deps.status.set('nats', { state: 'starting', reason: 'Starting nats-server.' });
    try {
      this.workersReach = nats.host !== undefined || workerHost !== null;
      await this.open(nats.host ?? workerHost ?? '127.0.0.1', []);
      this.keepCarriedUsers();
    } catch (e) {
      this.runs.failOrphans([]);
      const reason = e instanceof NexusError ? e.message : `NATS could not be started: ${(e as Error).message}`;
      this.deps.log.warn('platform tools unavailable', { reason });
      this.deps.status.set('nats', { state: 'unavailable', reason });
      await this.dispose();
    }
  }

  /**
   * The managed server comes back on the same port with the users a previous core left in its
   * config (see managed-server.ts), so sessions still running keep their hook and run credentials
   * without a relaunch. Runs whose user did not survive are failed: nothing can call as them.
   */
  private keepCarriedUsers(): void {
    this.runs.failOrphans(this.users.keepCarried());
  }

  /**
   * Moves the managed server to the workers' address once it is learned after start-up (Docker
   * came back). Users carry over; a configured `nats.host` or an external server stays where it is.
   */
  async moveTo(workerHost: string): Promise<void> {
    const server = this.server;
    if (!server || this.deps.config.nats.host !== undefined) return;
    if (server.host === workerHost && this.workersReach) return;
    this.workersReach = true;
    const users = server.users;
    await this.close();
    try {
      await this.open(workerHost, users);
    } catch (e) {
      const reason = e instanceof NexusError ? e.message : `NATS could not be started: ${(e as Error).message}`;
      this.deps.status.set('nats', { state: 'unavailable', reason });
      await this.close();
    }
  }

  private async open(host: string, users: NatsUser[]): Promise<void> {
    const { nats } = this.deps.config;
    const server = await ManagedNats.start({
      binary: nats.binary,
      host,
      port: nats.port,
      dir: join(this.deps.dataDir, 'nats'),
      leafPort: nats.leafPort,
    });
    this.server = server;
    server.onRevoked(() => this.server === server && this.trustListeners.forEach((l) => l()));
    this.deps.redactor.addSecret(jwtSecret(server.core.password));
    // The server restarts itself after an unexpected exit (managed-server.ts); the status follows it.
    server.watch((state, reason) => {
      if (state === 'unavailable') this.deps.log.error('nats-server is down', { reason });
      const set = (): void => void (this.server === server && this.deps.status.set('nats', { state, reason }));
      // Running again once core's own connection (and its subscriptions) is back on the new server.
      if (state === 'running' && this.nc) void connectionBack(this.nc, () => server.running).then(set);
      else set();
    });
    if (users.length) await server.addUsers(...users);
    this.nc = await connect({
      servers: server.url,
      ...userAuth(server.core.password),
      name: 'nexus-core',
      // A server that dies is restarted on the same address (managed-server.ts): keep trying.
      maxReconnectAttempts: -1,
      reconnectTimeWait: 250,
      // No stack-traced error built per request or timed subscription in case it fails (docs/performance.md).
      noAsyncTraces: true,
    });
    await this.subscriptions.subscribe(this.nc);
    // Handed to workers only once core listens on it, and in the same turn as the status that names it.
    this.natsUrl = server.url;
    this.deps.status.set('nats', {
      state: 'running',
      reason: this.workersReach
        ? `nats-server on ${server.url}.`
        : `nats-server on ${server.url}; workers on the ${this.deps.config.docker.network} network reach it ` +
          `once Docker answers (their address is not known yet).`,
    });
  }

  /** Publishes as core (catalogue pushes to a run's inbox); a no-op without NATS. */
  publish(subject: string, body: string): void {
    this.nc?.publish(subject, body);
  }

  get url(): string | null {
    return this.natsUrl;
  }

  /** Hands one message to a workspace's hook relay (message-relay.ts); null: no relay listens, or no NATS. */
  relayMessage(workspaceId: string, payload: string, timeoutMs: number): Promise<string | null> {
    return this.nc ? relayMessage(this.nc, workspaceId, payload, timeoutMs) : Promise.resolve(null);
  }

  /** Asks a workspace's hook relay for a checkpoint (checkpoint-relay.ts); null: no relay listens, or no NATS. */
  relayCheckpoint(workspaceId: string, payload: string, timeoutMs: number): Promise<string | null> {
    return this.nc ? relayCheckpoint(this.nc, workspaceId, payload, timeoutMs) : Promise.resolve(null);
  }

  /** The managed nats-server's process id (null with an external server or none). */
  get serverPid(): number | null {
    return this.server?.pid ?? null;
  }

  createAgent(input: { name: string; project?: string | null; tools?: string[] }): Agent {
    return this.agents.create(input);
  }

  createTask(input: Omit<NewTask, 'status'> & { status?: NewTask['status'] }): Task {
    if (input.parentId && !this.tasks.get(input.parentId))
      throw new NexusError('not_found', `No task "${input.parentId}".`);
    return this.tasks.create({ status: 'in_progress', ...input });
  }

  /** Starts a run and gives it its own NATS user: publish its request subject only, subscribe its inbox only. */
  async createRun(agentId: string, taskId?: string | null, sessionId?: string | null): Promise<RunCredentials> {
    const url = this.requireNats();
    if (!this.agents.get(agentId)) throw new NexusError('not_found', `No agent "${agentId}".`);
    if (taskId && !this.tasks.get(taskId)) throw new NexusError('not_found', `No task "${taskId}".`);
    const run = this.runs.create({ agentId, taskId: taskId ?? null, sessionId: sessionId ?? null });
    const base = {
      runId: run.id,
      natsUrl: url,
      inboxPrefix: subjects.inboxPrefixFor(run.id),
      subject: subjects.toolsFor(run.id),
    };
    let issued: IssuedUser | null;
    try {
      issued = await this.users.addRun(run.id);
    } catch (e) {
      this.runs.end(run.id, 'failed', 'NATS user could not be created.');
      throw e;
    }
    return { ...base, user: issued?.user ?? null, password: issued?.password ?? null };
  }

  /** Ends a run: its user is removed and the server drops its connection. */
  async endRun(runId: string, status: Exclude<RunStatus, 'running'> = 'finished', summary?: string): Promise<void> {
    const run = this.runs.get(runId);
    if (!run) throw new NexusError('not_found', `No run "${runId}".`);
    this.runs.end(runId, status, summary);
    await this.users.removeRun(runId);
  }

  /**
   * For one remote engine's leaf node (nats/leaf-node.ts): the creds file of its one connection to
   * core's leafnode port (its seed is registered with the redactor), the port, and the trust the
   * leaf loads. A second call replaces (and revokes) the engine's previous credential.
   */
  async leafCredentials(engineId: string): Promise<{ creds: string; hubPort: number; trust: NatsTrust }> {
    this.requireNats();
    return this.users.leafCredentials(engineId);
  }

  /** Revokes an engine's leaf credential: core's server drops the leaf on that reload. */
  removeLeaf(engineId: string): Promise<void> {
    return this.users.removeLeaf(engineId);
  }

  /** The operator and account JWTs as of now (revocations included), for a leaf node to reload; null without NATS. */
  get natsTrust(): NatsTrust | null {
    return this.server?.trust ?? null;
  }

  /**
   * Called after each revocation core's server has applied (a run ended, a hook user or a leaf
   * credential removed or replaced): `natsTrust` has a new account JWT for leaf nodes to load.
   */
  onTrustChanged(listener: () => void): Disposable {
    this.trustListeners.add(listener);
    return { dispose: () => void this.trustListeners.delete(listener) };
  }

  /** Routes workers of remote engines to their engine's leaf node (engines/engine-leaf.ts). */
  routeWorkers(urlOf: (workspaceId: string) => Promise<string | null>): void {
    this.workerUrlOf = urlOf;
  }

  /** The NATS URL a workspace's workers use: its engine's leaf node, or core's server. */
  async workerUrl(workspaceId: string): Promise<string> {
    const hub = this.requireNats();
    return (await this.workerUrlOf?.(workspaceId)) ?? hub;
  }

  /** A publish-only user for one workspace's hook forwarder, on `nexus.hooks.<workspaceId>`. */
  async createHookPublisher(workspaceId: string): Promise<HookCredentials> {
    this.requireNats();
    if (!/^[A-Za-z0-9_-]{1,100}$/.test(workspaceId))
      throw new NexusError('bad_request', 'A workspace id for hooks must be letters, digits, dashes and underscores.');
    const base = { workspaceId, natsUrl: await this.workerUrl(workspaceId), subject: subjects.hooksFor(workspaceId) };
    const issued = await this.users.addHookPublisher(workspaceId);
    return { ...base, user: issued?.user ?? null, password: issued?.password ?? null };
  }

  async removeHookPublisher(workspaceId: string): Promise<void> {
    await this.users.removeHookPublisher(workspaceId);
  }

  /** Every hook event any workspace publishes, parsed; the workspace id comes from the subject. */
  onHookEvent(handler: (e: HookEvent) => void): Disposable {
    return this.subscriptions.onHookEvent(handler);
  }

  /** The one receiver of PermissionRequest hooks' questions (workspace from the subject); it must answer each. */
  onPermissionAsk(handler: PermissionAskHandler): Disposable {
    return this.subscriptions.onPermissionAsk(handler);
  }

  /** What ACP sessions' bridges publish (nexus.acp.<workspaceId>): to the one receiver, the workspace from the subject. */
  onAcpMessage(handler: (e: HookEvent) => void): Disposable {
    return this.subscriptions.onAcpMessage(handler);
  }

  async dispose(): Promise<void> {
    this.subscriptions.dropHookHandlers();
    await this.close();
    if (this.deps.status.get().nats.state !== 'unavailable')
      this.deps.status.set('nats', { state: 'stopped', reason: 'Platform tools are stopped.' });
  }

  private async close(): Promise<void> {
    this.subscriptions.unsubscribe();
    const nc = this.nc;
    this.nc = null;
    if (nc) await nc.drain().catch(() => nc.close());
    const server = this.server;
    this.server = null;
    this.natsUrl = null;
    if (server) await server.stop();
  }

  private requireNats(): string {
    if (!this.natsUrl) throw new NexusError('nats_unavailable', this.deps.status.get().nats.reason);
    return this.natsUrl;
  }
}
