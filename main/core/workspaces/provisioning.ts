import type { AgentKind, Workspace } from '../../../shared/contract';
import { errorMessage, NexusError } from '../../../shared/errors';
import type { EventBus } from '../events';
import type { Logger } from '../log';
import type { WorkspaceAgent } from '../agents';
import type { Redactor } from '../redact';
import {
  BASE_WORKER_PATH,
  credentialPayload,
  dockerFailure,
  LABEL,
  LOCAL_ENGINE,
  WORKSPACE_DIR,
  workspaceContainerSpec,
  type AgentCliVolume,
  type ContainerLimits,
  type WorkerContext,
  type WorkerImageBuilder,
  type WorkspaceContainers,
  type WorkspaceEngines,
} from '../docker';
import { checkRepoUrl, checkSecretHost, credentialHost } from './repo-url';
import type { WorkspaceRecipes } from './recipe/recipe-apply';
import type { WorkspaceRuntime } from './runtime';
import { gitUsername, type ResolvedSecret, type SecretSource } from './secret-source';
import { publicWorkspace, type WorkspaceRecord, type WorkspaceStore } from './workspace-store';

export interface ProvisioningDeps {
  store: WorkspaceStore;
  runtime: WorkspaceRuntime;
  /** The local engine's calls. */
  containers: WorkspaceContainers;
  /** The calls for the engine a workspace lives on. */
  containersOf(engine: string): WorkspaceContainers;
  engines: WorkspaceEngines;
  events: EventBus;
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
  /** The agent CLI to mount and the agent credential to put in; absent: workspaces without the agent. */
  agent?: WorkspaceAgent | undefined;
  /** Saves a changed row and tells everyone (the workspace service's one way to publish a change). */
  emit(w: WorkspaceRecord | null): WorkspaceRecord;
  /** Workspaces with an operation in flight (reconciliation leaves them alone). */
  busy: Set<string>;
  /** The repository's devcontainer.json as its recipe (absent: never read). */
  recipes?: WorkspaceRecipes | undefined;
  /** Egress by allow-list (core/egress): a confined workspace's network and proxy environment; absent: all open. */
  egress?: WorkspaceEgressPort | undefined;
}

/** What provisioning asks of the egress rule (core/egress WorkspaceEgress). */
export interface WorkspaceEgressPort {
  /** Refuses a confined create that cannot be honoured (host networking, a TLS engine). */
  checkCreate(confined: boolean, engine: string): void;
  choose(workspaceId: string, confined: boolean): void;
  /** The internal network and the proxy's environment; null for an open workspace. */
  containerOf(workspaceId: string): Promise<{ network: string; env: string[] } | null>;
  /** Its container started: resolves once its way to the proxy is up (a remote engine's relay), before git goes out. */
  started(workspaceId: string, containerId: string): Promise<void>;
}

const CLONE_TIMEOUT_MS = 10 * 60_000;
const GIT_OUTPUT_BYTES = 64 * 1024;

/**
 * Provisioning: the checks of a create, the row, then in the workspace's queue the image, volume,
 * container and clone; and git with the provider token handed in on stdin (clone, and fetch on start).
 */
export class WorkspaceProvisioner {
  constructor(private readonly deps: ProvisioningDeps) {}

  /** Checks everything it can before the row exists; the slow part runs in the workspace's queue. */
  async create(input: {
    name: string;
    repoUrl: string;
    secretId?: string;
    image?: string;
    agentSecretId?: string;
    bypassPermissions?: boolean;
    defaultAgent?: AgentKind;
    /** allow-list: on the internal network, out only through Nexus (docs/security.md); open (default): as before. */
    egress?: 'open' | 'allow-list';
    /** The engine it is placed on (the workspace service chose it). */
    engine: string;
  }): Promise<Workspace> {
    const { store, maxWorkspaces } = this.deps;
    const repoUrl = checkRepoUrl(input.repoUrl);
    if (store.find(input.name)) throw new NexusError('conflict', `A workspace named "${input.name}" already exists.`);
    if (store.count() >= maxWorkspaces)
      throw new NexusError('conflict', `The quota of ${maxWorkspaces} workspaces is reached; delete one first.`);
    const secret = input.secretId ? await this.resolveSecret(input.secretId) : null;
    if (secret && input.secretId) checkSecretHost(secret.host, repoUrl, input.secretId);
    const agentSecretId = input.agentSecretId ? this.deps.agent?.checkCredential(input.agentSecretId) : undefined;
    if (input.defaultAgent) this.deps.agent?.checkKind(input.defaultAgent);
    const confined = input.egress === 'allow-list';
    if (confined && !this.deps.egress)
      throw new NexusError('bad_request', 'Egress by allow-list is not available in this Nexus.');
    this.deps.egress?.checkCreate(confined, input.engine);
    if (input.image && !(await this.deps.containersOf(input.engine).imageExists(input.image)))
      throw new NexusError('bad_request', `The image "${input.image}" does not exist in the Docker engine.`);
    let row: WorkspaceRecord;
    try {
      row = store.insert({
        name: input.name,
        repoUrl,
        secretId: input.secretId ?? null,
        image: input.image ?? null,
        agentSecretId: agentSecretId ?? null,
        bypassPermissions: input.bypassPermissions ?? false,
        ...(input.defaultAgent ? { defaultAgent: input.defaultAgent } : {}),
        engine: input.engine,
        volumePrefix: `nexus-ws-${this.deps.owner.slice(0, 8)}-`,
      });
    } catch (e) {
      // Two creates with one name raced past the check above; the UNIQUE constraint decides.
      if (e instanceof Error && /UNIQUE/.test(e.message))
        throw new NexusError('conflict', `A workspace named "${input.name}" already exists.`);
      throw e;
    }
    this.deps.egress?.choose(row.id, confined);
    this.deps.emit(row);
    this.deps.busy.add(row.id);
    void this.deps.runtime.run(row.id, () => this.provision(row, secret)).finally(() => this.deps.busy.delete(row.id));
    return publicWorkspace(row);
  }

  private async provision(row: WorkspaceRecord, secret: ResolvedSecret | null): Promise<void> {
    const { store, emit, engines } = this.deps;
    const containers = this.deps.containersOf(row.engine);
    const remote = row.engine !== LOCAL_ENGINE;
    const progress = (p: { step: string; fraction?: number; done?: boolean; error?: string }): void =>
      this.deps.events.emit('progress', {
        id: `workspace:${row.id}:create`,
        workspaceId: row.id,
        label: `Create ${row.name}`,
        done: false,
        ...p,
      });
    const step = (s: string, fraction?: number): void => progress({ step: s, fraction });
    let containerId: string | null = null;
    try {
      step('Preparing the worker image', 0);
      const image =
        row.image ??
        this.deps.image ??
        (await this.deps.builder.ensure(this.deps.worker, (s, f) => step(s, f === undefined ? undefined : f * 0.5)));
      store.update(row.id, { image });
      // A remote engine gets the image from the local one (save | load through the API) unless the caller named one.
      if (remote && !row.image) await engines.ensureImage(row.engine, image, (s) => step(s, 0.5));
      const cli = this.deps.agent
        ? await this.deps.agent.clis((s, f) => step(s, f === undefined ? undefined : 0.5))
        : null;
      if (cli?.problem)
        this.deps.log.warn('workspace without an agent CLI', { workspace: row.id, reason: cli.problem });
      const mounts: AgentCliVolume[] = [];
      // Every installed kind's CLI: on a remote engine its volume, filled at the first session of that kind.
      for (const m of cli?.mounts ?? [])
        mounts.push({ source: await engines.agentCli(row.engine, m.dir), target: m.target });
      step('Creating the container', 0.55);
      await containers.ensureNetwork();
      const egress = (await this.deps.egress?.containerOf(row.id)) ?? null;
      await containers.call('create the workspace volume', () =>
        containers.docker.createVolume({
          Name: row.volume,
          Labels: { [LABEL.managed]: '1', [LABEL.owner]: this.deps.owner, [LABEL.workspaceId]: row.id },
        }),
      );
      const container = await containers.call('create the container', () =>
        containers.docker.createContainer(
          workspaceContainerSpec(
            row,
            image,
            this.deps.owner,
            this.deps.limits,
            { mounts, path: this.deps.agent?.workerPath() ?? BASE_WORKER_PATH },
            egress,
          ),
        ),
      );
      containerId = container.id;
      const withContainer = emit(store.update(row.id, { containerId }));
      await containers.call('start the container', () => container.start());
      await this.deps.egress?.started(row.id, container.id);
      step('Cloning the repository', 0.65);
      await this.git(withContainer, secret, ['clone', '--progress', '--', row.repoUrl, WORKSPACE_DIR], {
        timeoutMs: CLONE_TIMEOUT_MS,
        onStderr: (text) => {
          const m = text.match(/Receiving objects:\s+(\d+)%/);
          if (m) step(`Cloning the repository (${m[1]}%)`, 0.65 + (Number(m[1]) / 100) * 0.3);
        },
      });
      // The repository's own recipe, when it has one: its image with Nexus's layer, on the same volume.
      let ready = withContainer;
      const notes: string[] = [];
      const recipe = await this.deps.recipes?.read(withContainer);
      if (recipe && this.deps.recipes) {
        step(`Building from ${recipe.file}`, 0.65);
        const spec = (img: string) =>
          workspaceContainerSpec(
            row,
            img,
            this.deps.owner,
            this.deps.limits,
            { mounts, path: this.deps.agent?.workerPath() ?? BASE_WORKER_PATH },
            egress,
          );
        const applied = await this.deps.recipes.apply(withContainer, recipe, { containers, spec }, step);
        containerId = applied.containerId;
        ready = emit(store.update(row.id, { containerId, ...(applied.image ? { image: applied.image } : {}) }));
        notes.push(...applied.notes);
      }
      const agentProblem = cli?.problem ?? (await this.injectAgentCredential(ready));
      emit(
        store.update(row.id, { status: 'running', reason: [agentProblem, ...notes].filter(Boolean).join(' ') || null }),
      );
      progress({ step: 'Running', fraction: 1, done: true });
      this.deps.log.info('workspace created', { workspace: row.id, name: row.name });
    } catch (e) {
      const failure = e instanceof NexusError ? e : dockerFailure(e, 'create the workspace');
      const reason = this.deps.redactor.text(failure.message);
      await this.removeQuietly(containers, containerId, row.volume);
      // The container is forgotten either way; if the engine was gone, the sweep after reconnect removes it by label.
      emit(store.update(row.id, { status: 'error', reason, containerId: null }));
      progress({ step: 'Failed', done: true, error: reason });
      this.deps.log.warn('workspace create failed', { workspace: row.id, reason });
    }
  }

  /** A started container's way out (egress): up before its first git (a confined workspace on a remote engine). */
  async egressStarted(w: WorkspaceRecord): Promise<void> {
    if (w.containerId) await this.deps.egress?.started(w.id, w.containerId);
  }

  /**
   * `git <args>` in the workspace with the provider token handed in the way create does it: stdin
   * to a tmpfs file that nexus-with-credential removes after use. Throws `unavailable` on a git failure.
   */
  async git(
    w: WorkspaceRecord,
    secret: ResolvedSecret | null,
    args: string[],
    opts: { timeoutMs: number; onStderr?: (text: string) => void },
  ): Promise<void> {
    const payload = credentialPayload(
      secret ? { host: credentialHost(w.repoUrl), username: gitUsername(secret.kind), token: secret.value } : null,
    );
    const result = await this.deps.runtime
      .exec(w, ['nexus-with-credential', 'git', ...args], {
        stdin: payload,
        env: { GIT_TERMINAL_PROMPT: '0' },
        maxOutput: GIT_OUTPUT_BYTES,
        ...opts,
      })
      .catch((e: unknown) => {
        throw this.deps.containersOf(w.engine).failure(e, 'run git in the workspace');
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
        `git ${args[0] === '-C' ? args[2] : args[0]} failed (exit ${result.exitCode}): ${this.deps.redactor.text(tail).slice(0, 400)}`,
      );
    }
  }

  /**
   * Puts the workspace's agent credential (or the default) into its container on stdin, or clears it;
   * only create and start call this (they hold the data key). Returns a reason when it could not.
   */
  async injectAgentCredential(w: WorkspaceRecord): Promise<string | null> {
    if (!this.deps.agent) return null;
    try {
      const { cmd, stdin, credential } = await this.deps.agent.injection(w.agentSecretId);
      const r = await this.deps.runtime.exec(w, cmd, { stdin });
      if (r.exitCode !== 0) throw new NexusError('internal', `writing it failed: ${r.stderr.trim().slice(0, 200)}`);
      void credential;
      return null;
    } catch (e) {
      const why = this.deps.redactor.text(errorMessage(e));
      this.deps.log.warn('agent credential not injected', { workspace: w.id, reason: why });
      return `The agent's credential could not be put in: ${why}`;
    }
  }

  async resolveSecret(secretId: string): Promise<ResolvedSecret> {
    const secret = await this.deps.secrets.resolve(secretId);
    if (/[\r\n]/.test(secret.value))
      throw new NexusError('bad_request', `Secret "${secretId}" holds a line break; a provider token is one line.`);
    this.deps.redactor.addSecret(secret.value);
    return secret;
  }

  private async removeQuietly(
    containers: WorkspaceContainers,
    containerId: string | null,
    volume: string,
  ): Promise<void> {
    try {
      if (containerId) await containers.removeContainer(containerId);
      await containers.removeVolume(volume);
    } catch (e) {
      this.deps.log.warn('cleanup after a failed create is deferred until Docker answers', { error: e });
    }
  }
}
