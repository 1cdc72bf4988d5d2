import { join } from 'node:path';
import type Docker from 'dockerode';
import type { StatusBoard } from '../app/status';
import type { CoreConfig } from '../config';
import { toDisposable, type DisposableStore } from '../disposable';
import type { EventBus } from '../events';
import type { Logger } from '../log';
import type { Redactor } from '../redact';
import type { Db } from '../store/open';
import { DockerWatch } from './docker-watch';
import { ownerIdFor } from './labels';
import { noSecrets, type SecretSource } from './secret-source';
import { WorkerImageBuilder } from './worker-image';
import { WorkspaceService } from './workspace-service';

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
  /** Delete is refused while this says a session of the workspace is being created. Default: never. */
  hasCreatingSessions?: (workspaceId: string) => boolean | Promise<boolean>;
}

/** Builds the workspace service and its Docker events watch; both are closed by `disposables`. */
export async function createWorkspaces(deps: {
  docker: Docker;
  db: Db;
  events: EventBus;
  status: StatusBoard;
  log: Logger;
  redactor: Redactor;
  config: CoreConfig;
  dataDir: string;
  workerContextDir: string;
  disposables: DisposableStore;
  options?: WorkspaceOptions;
}): Promise<{ service: WorkspaceService; watch: DockerWatch }> {
  const { docker, config } = deps;
  const owner = ownerIdFor(deps.dataDir);
  let watch: DockerWatch | null = null;
  const service = new WorkspaceService({
    docker,
    db: deps.db,
    events: deps.events,
    status: deps.status,
    log: deps.log.child({ feature: 'workspaces' }),
    redactor: deps.redactor,
    owner,
    limits: {
      network: config.docker.network,
      memoryBytes: config.docker.memoryBytes,
      pidsLimit: config.docker.pidsLimit,
    },
    maxWorkspaces: config.quota.maxWorkspaces,
    image: config.docker.image,
    worker: {
      dir: deps.workerContextDir,
      mcpBridge: join(deps.workerContextDir, '..', '..', 'dist', 'worker', 'nexus-mcp.cjs'),
      baseImage: config.docker.baseImage,
    },
    builder: new WorkerImageBuilder(docker, { network: config.docker.network }),
    secrets: deps.options?.secrets ?? noSecrets,
    hasCreatingSessions: deps.options?.hasCreatingSessions ?? (() => false),
    onEngineDown: (reason) => watch?.lost(reason),
  });
  watch = new DockerWatch(docker, {
    status: deps.status,
    log: deps.log,
    owner,
    onEvent: (e) => service.onContainerEvent(e.labels),
    onReconnect: () => service.sweep(),
  });
  deps.disposables.add(toDisposable(() => service.idle()));
  deps.disposables.add(watch);
  await watch.start();
  return { service, watch };
}
