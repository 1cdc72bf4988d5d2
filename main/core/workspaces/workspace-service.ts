import type { Orphan, Workspace } from '../../../shared/contract';
import { errorMessage, NexusError } from '../../../shared/errors';
import type { StatusBoard } from '../app';
import type { EventBus } from '../events';
import type { Logger } from '../log';
import type { Redactor } from '../redact';
import {
  isOwnedBy,
  LABEL,
  LOCAL_ENGINE,
  statusOf,
  WORKSPACE_DIR,
  WorkspaceContainers,
  type ContainerSummary,
  type WorkspaceEngines,
} from '../docker';
import { checkSecretHost } from './repo-url';
import { WorkspaceProvisioner, type ProvisioningDeps } from './provisioning';
import type { WorkspaceRuntime } from './runtime';
import { workspaceDisk, type DiskDirs, type DiskUse } from './workspace-disk';
import type { WorkspaceEvents } from './workspace-events';
import { publicWorkspace, type WorkspaceRecord, type WorkspaceStore } from './workspace-store';

export interface WorkspaceServiceDeps extends Omit<ProvisioningDeps, 'emit' | 'busy' | 'containersOf'> {
  /** The Docker engines workspaces live on (`containers` is the local one's calls). */
  engines: WorkspaceEngines;
  status: StatusBoard;
  events: EventBus;
  log: Logger;
  redactor: Redactor;
  /** Core-internal reactions: `started`, `removed`. */
  signals: WorkspaceEvents;
  /** Where `disk` measures: the clone and the session worktrees in the container. */
  disk: DiskDirs;
}

const FETCH_TIMEOUT_MS = 60_000;

/**
 * Workspaces: one hardened container per repository clone. Reads come from the store; the engine is
 * consulted by the operations, the Docker events watch (onContainerEvent) and the sweep after a
 * (re)connect. Every operation on a workspace takes its turn in the runtime's queue.
 */
export class WorkspaceService {
  readonly store: WorkspaceStore;
  readonly runtime: WorkspaceRuntime;
  private readonly containers: WorkspaceContainers;
  private readonly provisioner: WorkspaceProvisioner;
  /** Workspaces with an operation in flight: event-driven reconciliation leaves them alone. */
  private readonly busy = new Set<string>();
  /** Status refreshes started by container events, awaited by idle() (so none outlives the database). */
  private readonly refreshes = new Set<Promise<void>>();
  /** The status each workspace was last published with (a move into running is a start). */
  private readonly published = new Map<string, string>();
  /** Per workspace: container events seen, and the newest whose listing was applied (onContainerEvent). */
  private readonly eventSeq = new Map<string, number>();
  private readonly appliedSeq = new Map<string, number>();
  /** The engine calls of each remote engine, made on first use. */
  private readonly remote = new Map<string, WorkspaceContainers>();

  constructor(private readonly deps: WorkspaceServiceDeps) {
    this.store = deps.store;
    this.runtime = deps.runtime;
    this.containers = deps.containers;
    this.provisioner = new WorkspaceProvisioner({
      ...deps,
      emit: (w) => this.emit(w),
      busy: this.busy,
      containersOf: (engine) => this.containersOf(engine),
    });
  }

  /** The engine calls for the engine a workspace lives on. */
  containersOf(engine: string): WorkspaceContainers {
    if (engine === LOCAL_ENGINE) return this.containers;
    let c = this.remote.get(engine);
    if (!c) {
      c = new WorkspaceContainers(this.deps.engines.docker(engine), {
        owner: this.deps.owner,
        network: this.deps.limits.network,
        signals: this.deps.signals,
        engine,
      });
      this.remote.set(engine, c);
    }
    return c;
  }

  /** Forgets a removed engine's client. */
  forgetEngine(engine: string): void {
    this.remote.delete(engine);
  }

  // ---- reads (the store only) ---------------------------------------------------------------

  list(): Workspace[] {
    return this.store.list().map(publicWorkspace);
  }

  get(ref: string): Workspace {
    return publicWorkspace(this.require(ref));
  }

  /** A running workspace's disk use (one `du` in its container). */
  disk(ref: string): Promise<DiskUse> {
    return workspaceDisk(this.runtime, this.deps.disk, ref);
  }

  async orphans(): Promise<Orphan[]> {
    const containers = await this.containers.ownedOrThrow();
    const ids = new Set(this.store.list().map((w) => w.id));
    return containers
      .filter((c) => !ids.has(c.Labels[LABEL.workspaceId] ?? '') && !this.busy.has(c.Labels[LABEL.workspaceId] ?? ''))
      .map((c) => ({
        containerId: c.Id,
        name: (c.Names[0] ?? c.Id).replace(/^\//, ''),
        image: c.Image,
        state: c.State,
      }));
  }

  /** Placed on the named engine, else on the reachable one with the fewest running sessions. */
  async create(
    input: Omit<Parameters<WorkspaceProvisioner['create']>[0], 'engine'> & { engine?: string },
  ): Promise<Workspace> {
    const engine = this.deps.engines.place(input.engine);
    this.requireDocker(engine);
    return this.provisioner.create({ ...input, engine });
  }

  // ---- start / stop / delete -----------------------------------------------------------------

  async start(ref: string): Promise<Workspace> {
    const w = this.require(ref);
    this.requireDocker(w.engine);
    return this.exclusive(w.id, async () => {
      const cur = this.store.get(w.id);
      if (cur.status === 'creating')
        throw new NexusError('conflict', `Workspace "${cur.name}" is still being created.`);
      if (!cur.containerId)
        throw new NexusError(
          'conflict',
          `Workspace "${cur.name}" has no container (${cur.reason ?? 'creation failed'}); delete it and create it again.`,
        );
      const secret = cur.secretId ? await this.provisioner.resolveSecret(cur.secretId) : null;
      if (secret && cur.secretId) checkSecretHost(secret.host, cur.repoUrl, cur.secretId);
      const containers = this.containersOf(cur.engine);
      try {
        await containers.docker.getContainer(cur.containerId).start();
      } catch (e) {
        if (statusOf(e) === 404) {
          this.emit(this.store.update(cur.id, { status: 'missing', reason: GONE }));
          throw new NexusError(
            'conflict',
            `The container of "${cur.name}" is gone; delete the workspace and create it again.`,
          );
        }
        if (statusOf(e) !== 304) throw containers.failure(e, 'start the container');
      }
      const wayOut = await this.provisioner.egressStarted(cur).then(
        () => null,
        (e: unknown) => `Started, but its way out is not up: ${this.deps.redactor.text(errorMessage(e))}`,
      );
      const fetched = await this.provisioner
        .git(cur, secret, ['-C', WORKSPACE_DIR, 'fetch', '--prune', 'origin'], { timeoutMs: FETCH_TIMEOUT_MS })
        .then(
          () => null,
          (e: unknown) =>
            `Started, but the repository could not be refreshed: ${this.deps.redactor.text(errorMessage(e))}`,
        );
      const agentProblem = await this.provisioner.injectAgentCredential(cur);
      // The recipe's postStartCommand (recipe/recipe-apply.ts); a failure is said, the workspace still runs.
      const poststart = await this.deps.recipes
        ?.started(cur, (s) =>
          this.deps.events.emit('progress', {
            id: `workspace:${cur.id}:start`,
            workspaceId: cur.id,
            label: `Start ${cur.name}`,
            done: false,
            step: s,
          }),
        )
        .then(
          () => null,
          (e: unknown) => this.deps.redactor.text(errorMessage(e)),
        );
      const reason = [wayOut, fetched, agentProblem, poststart].filter(Boolean).join(' ') || null;
      return publicWorkspace(this.emit(this.store.update(cur.id, { status: 'running', reason })));
    });
  }

  async stop(ref: string): Promise<Workspace> {
    const w = this.require(ref);
    this.requireDocker(w.engine);
    return this.exclusive(w.id, async () => {
      const cur = this.store.get(w.id);
      if (!cur.containerId) throw new NexusError('conflict', `Workspace "${cur.name}" has no container to stop.`);
      const containers = this.containersOf(cur.engine);
      try {
        await containers.docker.getContainer(cur.containerId).stop({ t: 5 });
      } catch (e) {
        const code = statusOf(e);
        if (code === 404)
          return publicWorkspace(this.emit(this.store.update(cur.id, { status: 'missing', reason: GONE })));
        if (code !== 304) throw containers.failure(e, 'stop the container');
      }
      return publicWorkspace(this.emit(this.store.update(cur.id, { status: 'stopped', reason: null })));
    });
  }

  /** Waits its turn behind the workspace's queued jobs (a session create among them), then removes it all. */
  async delete(ref: string): Promise<{ deleted: true; id: string }> {
    const w = this.require(ref);
    this.requireDocker(w.engine);
    return this.exclusive(w.id, async () => {
      const cur = this.store.get(w.id);
      const containers = this.containersOf(cur.engine);
      if (cur.containerId) await containers.removeContainer(cur.containerId);
      await containers.removeVolume(cur.volume);
      await this.removeStrays(cur.id);
      this.store.delete(cur.id);
      this.published.delete(cur.id);
      this.deps.events.emit('workspaces.changed', { workspace: null, removedId: cur.id });
      this.deps.signals.emit('removed', { workspaceId: cur.id });
      this.deps.log.info('workspace deleted', { workspace: cur.id, name: cur.name });
      return { deleted: true as const, id: cur.id };
    });
  }

  async removeOrphan(containerId: string): Promise<{ removed: true }> {
    this.requireDocker(LOCAL_ENGINE);
    const orphan = (await this.orphans()).find(
      (o) => o.containerId === containerId || (containerId.length >= 12 && o.containerId.startsWith(containerId)),
    );
    if (!orphan)
      throw new NexusError(
        'not_found',
        `No orphaned Nexus container "${containerId}" (only labelled containers without a workspace can be removed here).`,
      );
    const info = await this.containers.call('inspect the container', () =>
      this.containers.docker.getContainer(orphan.containerId).inspect(),
    );
    if (!isOwnedBy(info.Config.Labels, this.deps.owner))
      throw new NexusError('forbidden', 'That container does not belong to this Nexus.');
    await this.containers.removeContainer(orphan.containerId);
    const workspaceId = info.Config.Labels[LABEL.workspaceId];
    if (workspaceId) await this.containers.removeVolumesOf(workspaceId);
    return { removed: true };
  }

  // ---- engine events and reconnects ---------------------------------------------------------

  /** A container event from an engine's watch: refresh that workspace's status. */
  onContainerEvent(labels: Record<string, string>, engine = LOCAL_ENGINE): void {
    const id = labels[LABEL.workspaceId];
    if (!id || this.busy.has(id) || !isOwnedBy(labels, this.deps.owner)) return;
    const w = this.store.find(id);
    if (!w || w.engine !== engine) return;
    // Docker sends kill, die and stop for one `docker stop`: their listings may come back out of order, and one
    // taken while the container still ran must not overwrite a newer one that saw it stopped.
    const seq = (this.eventSeq.get(id) ?? 0) + 1;
    this.eventSeq.set(id, seq);
    const refresh: Promise<void> = this.containersOf(engine)
      .owned()
      .then(
        async (cs) => {
          if ((this.appliedSeq.get(id) ?? 0) > seq) return;
          this.appliedSeq.set(id, seq);
          const cur = this.store.find(w.id);
          if (!cur) return;
          // Started again outside Nexus (docker restart, the engine's restart policy): its /run/nexus
          // tmpfs came back empty, so the agent's credential goes in again before its sessions relaunch
          // (reconcile's `started` converges them), or each would sit at "Not logged in".
          const c = cs.find((x) => x.Id === cur.containerId);
          if (cur.status !== 'running' && c?.State === 'running' && !this.busy.has(cur.id))
            await this.provisioner.injectAgentCredential(cur);
          const now = this.store.find(w.id);
          if (now) this.reconcile(now, cs);
        },
        () => undefined,
      )
      .catch((e: unknown) => this.deps.log.warn('refreshing a workspace after a container event failed', { error: e }))
      .finally(() => this.refreshes.delete(refresh));
    this.refreshes.add(refresh);
  }

  /**
   * After (re)connecting to an engine: remove what failed creates left behind, mark interrupted
   * creates, reconcile every row of the workspaces on it.
   */
  async sweep(engine = LOCAL_ENGINE): Promise<void> {
    const calls = this.containersOf(engine);
    const containers = await calls.owned();
    for (const w of this.store.list()) {
      if (this.busy.has(w.id) || w.engine !== engine) continue;
      if (w.status === 'creating') {
        this.emit(
          this.store.update(w.id, {
            status: 'error',
            reason: 'Creation was interrupted (Nexus stopped before it finished).',
            containerId: null,
          }) ?? w,
        );
      }
      const cur = this.store.get(w.id);
      for (const c of containers.filter((c) => c.Labels[LABEL.workspaceId] === w.id && c.Id !== cur.containerId))
        await calls.removeContainer(c.Id).catch(() => undefined);
      if (!cur.containerId && cur.status === 'error') await calls.removeVolume(cur.volume).catch(() => undefined);
      this.reconcile(cur, containers);
    }
  }

  /** Resolves when every queued operation and every refresh after a container event has settled (tests, dispose). */
  async idle(): Promise<void> {
    await Promise.all([...this.refreshes]);
    await this.runtime.idle();
  }

  // ---- helpers ------------------------------------------------------------------------------

  private reconcile(w: WorkspaceRecord, containers: ContainerSummary[]): WorkspaceRecord {
    if (this.busy.has(w.id) || w.status === 'creating' || w.status === 'error' || !w.containerId) return w;
    const c = containers.find((x) => x.Id === w.containerId);
    const status = !c ? 'missing' : c.State === 'running' ? 'running' : 'stopped';
    if (status === w.status) return w;
    const reason =
      status === 'missing' ? GONE : status === 'stopped' ? `The container is ${c?.State ?? 'stopped'}.` : null;
    return this.emit(this.store.update(w.id, { status, reason }) ?? w);
  }

  private exclusive<T>(id: string, task: () => Promise<T>): Promise<T> {
    return this.runtime.run(id, async () => {
      this.busy.add(id);
      try {
        return await task();
      } finally {
        this.busy.delete(id);
      }
    });
  }

  private require(ref: string): WorkspaceRecord {
    const w = this.store.find(ref);
    if (!w) throw new NexusError('not_found', `No workspace "${ref}".`);
    return w;
  }

  private requireDocker(engine: string): void {
    this.deps.engines.requireReachable(engine);
  }

  /** Containers labelled for this workspace that its row does not reference (leftovers of failed creates). */
  private async removeStrays(workspaceId: string): Promise<void> {
    const cur = this.store.get(workspaceId);
    for (const c of await this.containersOf(cur.engine).ownedOrThrow())
      if (c.Labels[LABEL.workspaceId] === workspaceId && c.Id !== cur.containerId)
        await this.containersOf(cur.engine).removeContainer(c.Id);
  }

  /** Publishes a changed row: `workspaces.changed` for the UI, `started` for core when it moved into running. */
  private emit(w: WorkspaceRecord | null): WorkspaceRecord {
    if (!w) throw new NexusError('not_found', 'The workspace was deleted meanwhile.');
    this.deps.events.emit('workspaces.changed', { workspace: publicWorkspace(w) });
    const before = this.published.get(w.id);
    this.published.set(w.id, w.status);
    if (w.status === 'running' && before !== 'running') this.deps.signals.emit('started', { workspaceId: w.id });
    return w;
  }
}

const GONE = 'The container is gone from the Docker engine.';
