import type Docker from 'dockerode';
import type { Orphan, Workspace } from '../../../shared/contract';
import { NexusError } from '../../../shared/errors';
import type { StatusBoard } from '../app/status';
import type { EventBus } from '../events';
import type { Logger } from '../log';
import type { Redactor } from '../redact';
import type { Db } from '../store/open';
import {
  containerNameOf,
  credentialPayload,
  workspaceContainerSpec,
  WORKSPACE_DIR,
  type ContainerLimits,
} from './container-spec';
import { dockerFailure, dockerUnavailable, isEngineDown } from './engine';
import { execIn } from './exec';
import { ensureWorkerNetwork } from './network';
import { isOwnedBy, LABEL, ownerFilter } from './labels';
import { checkRepoUrl, checkSecretHost, credentialHost } from './repo-url';
import { gitUsername, type ResolvedSecret, type SecretSource } from './secret-source';
import { SerialQueue } from './serial';
import { imageExists, statusOf, type WorkerImageBuilder, type WorkerContext } from './worker-image';
import { publicWorkspace, WorkspaceStore, type WorkspaceRecord } from './workspace-store';

export interface WorkspaceServiceDeps {
  docker: Docker;
  db: Db;
  events: EventBus;
  status: StatusBoard;
  log: Logger;
  redactor: Redactor;
  owner: string;
  limits: ContainerLimits;
  maxWorkspaces: number;
  /** Image for new workspaces when the caller names none; built from `worker` when absent. */
  image?: string;
  worker: Omit<WorkerContext, 'installAgentCli'>;
  builder: WorkerImageBuilder;
  secrets: SecretSource;
  /**
   * Whether a session of this workspace is being created (delete is refused meanwhile). The
   * sessions feature provides it; until then no session exists, so the default says no.
   */
  hasCreatingSessions: (workspaceId: string) => boolean | Promise<boolean>;
  /** Told when a call finds the engine gone (the watch then reconnects). */
  onEngineDown: (reason: string) => void;
}

interface ContainerSummary {
  Id: string;
  Names: string[];
  Image: string;
  State: string;
  Labels: Record<string, string>;
}

const CLONE_TIMEOUT_MS = 10 * 60_000;
const FETCH_TIMEOUT_MS = 60_000;

/** Workspaces: one hardened container per repository clone, reconciled with the engine. */
export class WorkspaceService {
  readonly store: WorkspaceStore;
  private readonly queue = new SerialQueue();
  /** Workspaces with an operation in flight: event-driven reconciliation leaves them alone. */
  private readonly busy = new Set<string>();

  constructor(private readonly deps: WorkspaceServiceDeps) {
    this.store = new WorkspaceStore(deps.db);
  }

  // ---- reads ------------------------------------------------------------------------------

  async list(): Promise<Workspace[]> {
    const containers = await this.ownedContainers().catch(() => null);
    return this.store.list().map((w) => publicWorkspace(containers ? this.reconcile(w, containers) : w));
  }

  async get(ref: string): Promise<Workspace> {
    const w = this.require(ref);
    const containers = await this.ownedContainers().catch(() => null);
    return publicWorkspace(containers ? this.reconcile(w, containers) : w);
  }

  async orphans(): Promise<Orphan[]> {
    const containers = await this.ownedContainersOrThrow();
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

  // ---- create -----------------------------------------------------------------------------

  async create(input: { name: string; repoUrl: string; secretId?: string; image?: string }): Promise<Workspace> {
    this.requireDocker();
    const repoUrl = checkRepoUrl(input.repoUrl);
    if (this.store.find(input.name))
      throw new NexusError('conflict', `A workspace named "${input.name}" already exists.`);
    if (this.store.count() >= this.deps.maxWorkspaces)
      throw new NexusError(
        'conflict',
        `The quota of ${this.deps.maxWorkspaces} workspaces is reached; delete one first.`,
      );
    const secret = input.secretId ? await this.resolveSecret(input.secretId) : null;
    if (secret && input.secretId) checkSecretHost(secret.host, repoUrl, input.secretId);
    if (input.image && !(await this.imageExists(input.image)))
      throw new NexusError('bad_request', `The image "${input.image}" does not exist in the Docker engine.`);
    let row: WorkspaceRecord;
    try {
      row = this.store.insert({
        name: input.name,
        repoUrl,
        secretId: input.secretId ?? null,
        image: input.image ?? null,
        volumePrefix: `nexus-ws-${this.deps.owner.slice(0, 8)}-`,
      });
    } catch (e) {
      // Two creates with one name raced past the check above; the UNIQUE constraint decides.
      if (e instanceof Error && /UNIQUE/.test(e.message))
        throw new NexusError('conflict', `A workspace named "${input.name}" already exists.`);
      throw e;
    }
    this.emit(row);
    this.busy.add(row.id);
    void this.queue.run(row.id, () => this.provision(row, secret)).finally(() => this.busy.delete(row.id));
    return publicWorkspace(row);
  }

  private async provision(row: WorkspaceRecord, secret: ResolvedSecret | null): Promise<void> {
    const progressId = `workspace:${row.id}:create`;
    const step = (s: string, fraction?: number): void =>
      this.deps.events.emit('progress', {
        id: progressId,
        label: `Create ${row.name}`,
        step: s,
        fraction,
        done: false,
      });
    let containerId: string | null = null;
    try {
      step('Preparing the worker image', 0);
      const image =
        row.image ??
        this.deps.image ??
        (await this.deps.builder.ensure(this.deps.worker, (s, f) => step(s, f === undefined ? undefined : f * 0.5)));
      this.store.update(row.id, { image });
      step('Creating the container', 0.55);
      await this.call('prepare the worker network', () =>
        ensureWorkerNetwork(this.deps.docker, this.deps.limits.network),
      );
      await this.call('create the workspace volume', () =>
        this.deps.docker.createVolume({
          Name: row.volume,
          Labels: { [LABEL.managed]: '1', [LABEL.owner]: this.deps.owner, [LABEL.workspaceId]: row.id },
        }),
      );
      const container = await this.call('create the container', () =>
        this.deps.docker.createContainer(workspaceContainerSpec(row, image, this.deps.owner, this.deps.limits)),
      );
      containerId = container.id;
      this.emit(this.store.update(row.id, { containerId }));
      await this.call('start the container', () => container.start());
      step('Cloning the repository', 0.65);
      await this.withCredential(
        containerId,
        secret,
        row.repoUrl,
        ['git', 'clone', '--progress', '--', row.repoUrl, WORKSPACE_DIR],
        CLONE_TIMEOUT_MS,
        (text) => {
          const m = text.match(/Receiving objects:\s+(\d+)%/);
          if (m) step(`Cloning the repository (${m[1]}%)`, 0.65 + (Number(m[1]) / 100) * 0.3);
        },
      );
      this.emit(this.store.update(row.id, { status: 'running', reason: null }));
      this.deps.events.emit('progress', {
        id: progressId,
        label: `Create ${row.name}`,
        step: 'Running',
        fraction: 1,
        done: true,
      });
      this.deps.log.info('workspace created', { workspace: row.id, name: row.name });
    } catch (e) {
      const failure = e instanceof NexusError ? e : dockerFailure(e, 'create the workspace');
      const reason = this.deps.redactor.text(failure.message);
      await this.removeQuietly(containerId, row.volume);
      // The container is forgotten either way; if the engine was gone, the sweep after reconnect removes it by label.
      this.emit(this.store.update(row.id, { status: 'error', reason, containerId: null }));
      this.deps.events.emit('progress', {
        id: progressId,
        label: `Create ${row.name}`,
        step: 'Failed',
        done: true,
        error: reason,
      });
      this.deps.log.warn('workspace create failed', { workspace: row.id, reason });
    }
  }

  // ---- start / stop / delete -----------------------------------------------------------------

  async start(ref: string): Promise<Workspace> {
    const w = this.require(ref);
    this.requireDocker();
    return this.exclusive(w.id, async () => {
      const cur = this.store.get(w.id);
      if (cur.status === 'creating')
        throw new NexusError('conflict', `Workspace "${cur.name}" is still being created.`);
      if (!cur.containerId)
        throw new NexusError(
          'conflict',
          `Workspace "${cur.name}" has no container (${cur.reason ?? 'creation failed'}); delete it and create it again.`,
        );
      const secret = cur.secretId ? await this.resolveSecret(cur.secretId) : null;
      if (secret && cur.secretId) checkSecretHost(secret.host, cur.repoUrl, cur.secretId);
      const container = this.deps.docker.getContainer(cur.containerId);
      try {
        await container.start();
      } catch (e) {
        if (statusOf(e) === 404) {
          this.emit(
            this.store.update(cur.id, { status: 'missing', reason: 'The container is gone from the Docker engine.' }),
          );
          throw new NexusError(
            'conflict',
            `The container of "${cur.name}" is gone; delete the workspace and create it again.`,
          );
        }
        if (statusOf(e) !== 304) throw this.failure(e, 'start the container');
      }
      // Secrets are re-injected the way create hands them in: stdin to a tmpfs file, removed after use.
      const fetched = await this.withCredential(
        cur.containerId,
        secret,
        cur.repoUrl,
        ['git', '-C', WORKSPACE_DIR, 'fetch', '--prune', 'origin'],
        FETCH_TIMEOUT_MS,
      ).then(
        () => null,
        (e: unknown) =>
          `Started, but the repository could not be refreshed: ${this.deps.redactor.text(e instanceof Error ? e.message : String(e))}`,
      );
      return publicWorkspace(this.emit(this.store.update(cur.id, { status: 'running', reason: fetched })));
    });
  }

  async stop(ref: string): Promise<Workspace> {
    const w = this.require(ref);
    this.requireDocker();
    return this.exclusive(w.id, async () => {
      const cur = this.store.get(w.id);
      if (!cur.containerId) throw new NexusError('conflict', `Workspace "${cur.name}" has no container to stop.`);
      try {
        await this.deps.docker.getContainer(cur.containerId).stop({ t: 5 });
      } catch (e) {
        const code = statusOf(e);
        if (code === 404)
          return publicWorkspace(
            this.emit(
              this.store.update(cur.id, { status: 'missing', reason: 'The container is gone from the Docker engine.' }),
            ),
          );
        if (code !== 304) throw this.failure(e, 'stop the container');
      }
      return publicWorkspace(this.emit(this.store.update(cur.id, { status: 'stopped', reason: null })));
    });
  }

  async delete(ref: string): Promise<{ deleted: true; id: string }> {
    const w = this.require(ref);
    this.requireDocker();
    if (await this.deps.hasCreatingSessions(w.id))
      throw new NexusError('conflict', `A session of "${w.name}" is being created; delete it when that has finished.`);
    return this.exclusive(w.id, async () => {
      const cur = this.store.get(w.id);
      if (cur.containerId) await this.removeContainer(cur.containerId);
      await this.removeVolume(cur.volume);
      await this.removeStrays(cur.id);
      this.store.delete(cur.id);
      this.deps.events.emit('workspaces.changed', { workspace: null, removedId: cur.id });
      this.deps.log.info('workspace deleted', { workspace: cur.id, name: cur.name });
      return { deleted: true as const, id: cur.id };
    });
  }

  async removeOrphan(containerId: string): Promise<{ removed: true }> {
    this.requireDocker();
    const orphan = (await this.orphans()).find(
      (o) => o.containerId === containerId || (containerId.length >= 12 && o.containerId.startsWith(containerId)),
    );
    if (!orphan)
      throw new NexusError(
        'not_found',
        `No orphaned Nexus container "${containerId}" (only labelled containers without a workspace can be removed here).`,
      );
    const info = await this.call('inspect the container', () =>
      this.deps.docker.getContainer(orphan.containerId).inspect(),
    );
    if (!isOwnedBy(info.Config.Labels, this.deps.owner))
      throw new NexusError('forbidden', 'That container does not belong to this Nexus.');
    await this.removeContainer(orphan.containerId);
    const workspaceId = info.Config.Labels[LABEL.workspaceId];
    if (workspaceId) await this.removeVolumesOf(workspaceId);
    return { removed: true };
  }

  // ---- engine events and reconnects ---------------------------------------------------------

  /** A container event from the watch: refresh that workspace's status. */
  onContainerEvent(labels: Record<string, string>): void {
    const id = labels[LABEL.workspaceId];
    if (!id || this.busy.has(id) || !isOwnedBy(labels, this.deps.owner)) return;
    const w = this.store.find(id);
    if (!w) return;
    void this.ownedContainers().then(
      (cs) => this.reconcile(this.store.get(w.id), cs),
      () => undefined,
    );
  }

  /** After (re)connecting: remove what failed creates left behind, mark interrupted creates, reconcile every row. */
  async sweep(): Promise<void> {
    const containers = await this.ownedContainers();
    for (const w of this.store.list()) {
      if (this.busy.has(w.id)) continue;
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
        await this.removeContainer(c.Id).catch(() => undefined);
      if (!cur.containerId && cur.status === 'error') await this.removeVolume(cur.volume).catch(() => undefined);
      this.reconcile(cur, containers);
    }
  }

  /** Resolves when every queued operation has settled (tests, dispose). */
  idle(): Promise<void> {
    return this.queue.idle();
  }

  // ---- helpers ------------------------------------------------------------------------------

  private reconcile(w: WorkspaceRecord, containers: ContainerSummary[]): WorkspaceRecord {
    if (this.busy.has(w.id) || w.status === 'creating' || w.status === 'error' || !w.containerId) return w;
    const c = containers.find((x) => x.Id === w.containerId);
    const status = !c ? 'missing' : c.State === 'running' ? 'running' : 'stopped';
    if (status === w.status) return w;
    const reason =
      status === 'missing'
        ? 'The container is gone from the Docker engine.'
        : status === 'stopped'
          ? `The container is ${c?.State ?? 'stopped'}.`
          : null;
    return this.emit(this.store.update(w.id, { status, reason }) ?? w);
  }

  private async withCredential(
    containerId: string,
    secret: ResolvedSecret | null,
    repoUrl: string,
    cmd: string[],
    timeoutMs: number,
    onStderr?: (t: string) => void,
  ): Promise<void> {
    const payload = credentialPayload(
      secret ? { host: credentialHost(repoUrl), username: gitUsername(secret.kind), token: secret.value } : null,
    );
    const result = await execIn(this.deps.docker, containerId, {
      cmd: ['nexus-with-credential', ...cmd],
      stdin: payload,
      env: ['GIT_TERMINAL_PROMPT=0'],
      timeoutMs,
      onStderr,
    }).catch((e: unknown) => {
      throw this.failure(e, 'run git in the workspace');
    });
    if (result.exitCode !== 0) {
      const tail = result.stderr
        .trim()
        .split('\n')
        .filter((l) => !/^(Receiving|remote:|Resolving)/.test(l))
        .slice(-3)
        .join(' ');
      throw new NexusError(
        'unavailable',
        `git ${cmd[1] === '-C' ? cmd[3] : cmd[1]} failed (exit ${result.exitCode}): ${this.deps.redactor.text(tail).slice(0, 400)}`,
      );
    }
  }

  private async resolveSecret(secretId: string): Promise<ResolvedSecret> {
    const secret = await this.deps.secrets.resolve(secretId);
    if (/[\r\n]/.test(secret.value))
      throw new NexusError('bad_request', `Secret "${secretId}" holds a line break; a provider token is one line.`);
    this.deps.redactor.addSecret(secret.value);
    return secret;
  }

  private exclusive<T>(id: string, task: () => Promise<T>): Promise<T> {
    return this.queue.run(id, async () => {
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

  private requireDocker(): void {
    const docker = this.deps.status.get().docker;
    if (docker.state !== 'available')
      throw dockerUnavailable(docker.reason.replace(/^Docker engine not reachable: /, ''));
  }

  private failure(e: unknown, action: string): NexusError {
    const f = dockerFailure(e, action);
    if (f.code === 'docker_unavailable' || isEngineDown(e)) this.deps.onEngineDown(action);
    return f;
  }

  private async call<T>(action: string, fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (e) {
      throw this.failure(e, action);
    }
  }

  private async ownedContainers(): Promise<ContainerSummary[]> {
    const list = (await this.deps.docker.listContainers({
      all: true,
      filters: { label: ownerFilter(this.deps.owner) },
    })) as ContainerSummary[];
    return list.filter((c) => isOwnedBy(c.Labels, this.deps.owner));
  }

  private ownedContainersOrThrow(): Promise<ContainerSummary[]> {
    return this.call('list containers', () => this.ownedContainers());
  }

  private async imageExists(image: string): Promise<boolean> {
    return imageExists(this.deps.docker, image).catch((e: unknown) => {
      throw this.failure(e, 'look up the image');
    });
  }

  private async removeContainer(id: string): Promise<void> {
    try {
      await this.deps.docker.getContainer(id).remove({ force: true, v: true });
    } catch (e) {
      if (statusOf(e) !== 404 && statusOf(e) !== 409) throw this.failure(e, 'remove the container');
    }
  }

  private async removeVolume(name: string): Promise<void> {
    try {
      await this.deps.docker.getVolume(name).remove();
    } catch (e) {
      if (statusOf(e) !== 404) throw this.failure(e, 'remove the workspace volume');
    }
  }

  private async removeVolumesOf(workspaceId: string): Promise<void> {
    const { Volumes } = await this.call('list volumes', () =>
      this.deps.docker.listVolumes({
        filters: { label: [...ownerFilter(this.deps.owner), `${LABEL.workspaceId}=${workspaceId}`] },
      }),
    );
    for (const v of Volumes ?? []) await this.removeVolume(v.Name);
  }

  /** Containers labelled for this workspace that its row does not reference (leftovers of failed creates). */
  private async removeStrays(workspaceId: string): Promise<void> {
    const cur = this.store.get(workspaceId);
    for (const c of await this.ownedContainersOrThrow())
      if (c.Labels[LABEL.workspaceId] === workspaceId && c.Id !== cur.containerId) await this.removeContainer(c.Id);
  }

  private async removeQuietly(containerId: string | null, volume: string): Promise<void> {
    try {
      if (containerId) await this.removeContainer(containerId);
      await this.removeVolume(volume);
    } catch (e) {
      this.deps.log.warn('cleanup after a failed create is deferred until Docker answers', { error: e });
    }
  }

  private emit(w: WorkspaceRecord | null): WorkspaceRecord {
    if (!w) throw new NexusError('not_found', 'The workspace was deleted meanwhile.');
    this.deps.events.emit('workspaces.changed', { workspace: publicWorkspace(w) });
    return w;
  }
}

export { containerNameOf };
