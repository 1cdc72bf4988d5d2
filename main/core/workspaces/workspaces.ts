import { join } from 'node:path';
import type Docker from 'dockerode';
import type { StatusBoard } from '../app';
import {
  type DockerConfig,
  type EngineProgress,
  DockerWatch,
  isOwnedBy,
  LABEL,
  LOCAL_ENGINE,
  localEngineOnly,
  ownerIdFor,
  WorkerImageBuilder,
  WorkspaceContainers,
  type WorkspaceEngines,
} from '../docker';
import type { QuotaConfig } from './config';
import { DisposableStore, toDisposable } from '../disposable';
import type { EventBus } from '../events';
import type { Logger } from '../log';
import type { Redactor } from '../redact';
import type { WorkspaceAgent } from '../agents';
import type { Db } from '../store';
import { WorkspaceRecipes } from './recipe/recipe-apply';
import { RecipeStore } from './recipe/recipe-store';
import { noSecrets, type SecretSource } from './secret-source';
import { WorkspaceRuntime } from './runtime';
import { WorkspaceEvents } from './workspace-events';
import { WorkspaceService } from './workspace-service';
import { WorkspaceStore } from './workspace-store';
import type { WorkspaceEgressPort } from './provisioning';

/** The vault as the workspaces' SecretSource (`host: ''` in the vault means any host). */
export const vaultSecretSource = (vault: {
  resolveSecret(id: string): Promise<{ value: string; host: string; kind: string }>;
}): SecretSource => ({
  resolve: async (id) => {
    const s = await vault.resolveSecret(id);
    return { value: s.value, host: s.host || null, kind: s.kind };
  },
});

export interface WorkspaceOptions {
  /** Provider tokens for clones. Default in createCore: the vault (`core.vault.resolveSecret`). */
  secrets?: SecretSource;
  /** The agent CLI mount and agent credential (core: agents/workspace-agent.ts); absent: no agent. */
  agent?: WorkspaceAgent;
  /** The Docker engines (core: engines/engine-registry.ts); absent: the local engine only. */
  engines?: WorkspaceEngines;
}

export interface WorkspacesWiring {
  docker: Docker;
  db: Db;
  events: EventBus;
  status: StatusBoard;
  log: Logger;
  redactor: Redactor;
  /** Core's config sections it reads (the sessions' directories: where repos and worktrees live on disk). */
  config: { docker: DockerConfig; quota: QuotaConfig; sessions: { repoDir: string; worktreesDir: string } };
  dataDir: string;
  workerContextDir: string;
  options?: WorkspaceOptions;
  /** Egress by allow-list (core/egress): confined workspaces' network and proxy environment. */
  egress?: WorkspaceEgressPort;
}

export interface Workspaces {
  service: WorkspaceService;
  /** The only way to a workspace container (sessions use it). */
  runtime: WorkspaceRuntime;
  /** Core-internal reactions: `started`, `removed`, `engineLost`. */
  signals: WorkspaceEvents;
  /** A workspace's remote and the vault secret for it (review and ship pushes there); null when there is none. */
  remoteOf(workspaceId: string): { repoUrl: string; secretId: string | null } | null;
  /** Starts the Docker events watch (which reconciles through the service). */
  start(): Promise<void>;
  /** Closes the watches and lets in-flight docker calls finish. */
  dispose(): Promise<void>;
  /** The recipes workspaces were built from (devcontainer.json): sessions' setup and run, previews' ports. */
  recipes: RecipeStore;
  /**
   * A kind's CLI where the workspace runs: on a remote engine the first session of a kind copies its install into the
   * volume every workspace there mounts (once per engine and version).
   */
  agentCli: {
    present(workspaceId: string, kind: string): Promise<boolean>;
    bring(workspaceId: string, kind: string, progress: EngineProgress): Promise<void>;
  };
}

/**
 * Builds the workspaces module in constructor order: store, runtime, service, then the Docker
 * events watch (which reconciles through the service; `start()` starts it, `dispose()` closes it).
 */
export function createWorkspaces(w: WorkspacesWiring): Workspaces {
  const { docker, config } = w;
  const owner = ownerIdFor(w.dataDir);
  const log = w.log.child({ feature: 'workspaces' });
  const signals = new WorkspaceEvents(log);
  const store = new WorkspaceStore(w.db);
  const engines = w.options?.engines ?? localEngineOnly(docker, () => w.status.get().docker);
  const runtime = new WorkspaceRuntime({ docker, dockerOf: (e) => engines.docker(e), store, signals });
  const containers = new WorkspaceContainers(docker, { owner, network: config.docker.network, signals });
  const worker = {
    dir: w.workerContextDir,
    mcpBridge: join(w.workerContextDir, '..', '..', 'dist', 'worker', 'nexus-mcp.cjs'),
    node: join(w.workerContextDir, '..', '..', 'dist', 'worker', 'node'),
  };
  const recipeStore = new RecipeStore(w.db);
  const recipes = new WorkspaceRecipes({ store: recipeStore, runtime, worker, log, redactor: w.redactor });
  const service = new WorkspaceService({
    store,
    runtime,
    containers,
    engines,
    signals,
    events: w.events,
    status: w.status,
    log,
    redactor: w.redactor,
    owner,
    limits: {
      network: config.docker.network,
      memoryBytes: config.docker.memoryBytes,
      pidsLimit: config.docker.pidsLimit,
    },
    maxWorkspaces: config.quota.maxWorkspaces,
    disk: { volumeDir: config.sessions.repoDir, worktreesDir: config.sessions.worktreesDir },
    image: config.docker.image,
    worker: { ...worker, baseImage: config.docker.baseImage },
    recipes,
    builder: new WorkerImageBuilder(docker, { network: config.docker.network }),
    secrets: w.options?.secrets ?? noSecrets,
    agent: w.options?.agent,
    egress: w.egress,
  });
  const watch = new DockerWatch(docker, {
    status: w.status,
    log: w.log,
    owner,
    signals,
    onEvent: (e) => {
      const workspaceId = e.labels[LABEL.workspaceId];
      if (e.action === 'oom' && workspaceId && isOwnedBy(e.labels, owner)) signals.emit('outOfMemory', { workspaceId });
      service.onContainerEvent(e.labels);
    },
    onReconnect: () => service.sweep(),
  });
  const closers = new DisposableStore();
  closers.add(toDisposable(() => service.idle()));
  closers.add(watch);
  const remoteOf = (id: string): { repoUrl: string; secretId: string | null } | null => {
    const row = store.find(id);
    return row ? { repoUrl: row.repoUrl, secretId: row.secretId } : null;
  };
  const start = async (): Promise<void> => {
    await watch.start();
    // Remote engines: each its own events watch, and a sweep of its workspaces after each reconnect.
    if (engines.follow)
      closers.add(
        engines.follow({
          owner,
          signals,
          log,
          onEvent: (engine, labels) => service.onContainerEvent(labels, engine),
          onReconnect: (engine) => service.sweep(engine),
          onRemoved: (engine) => service.forgetEngine(engine),
        }),
      );
  };
  /** A kind's install and where a workspace on a remote engine needs it (null: the local engine's bind mount). */
  const cliOf = async (workspaceId: string, kind: string) => {
    const row = store.find(workspaceId);
    if (!row?.image || row.engine === LOCAL_ENGINE) return null;
    const dir = await w.options?.agent?.cliOf(kind);
    return dir ? { engine: row.engine, image: row.image, dir } : null;
  };
  const agentCli: Workspaces['agentCli'] = {
    present: async (id, kind) => {
      const c = await cliOf(id, kind);
      return !c || engines.hasAgentCli(c.engine, c.dir);
    },
    bring: async (id, kind, progress) => {
      const c = await cliOf(id, kind);
      if (c) await engines.fillAgentCli(c.engine, c.dir, c.image, progress);
    },
  };
  return {
    service,
    runtime,
    signals,
    remoteOf,
    start,
    recipes: recipeStore,
    agentCli,
    dispose: () => closers.dispose(),
  };
}
