import { join } from 'node:path';
import type Docker from 'dockerode';
import type { WorkspaceAgent } from '../agents';
import type { CoreConfig } from '../config';
import type { CoreModule } from '../core-module';
import { probeDocker } from '../docker';
import { EgressStore, egressHandlers, WorkspaceEgress } from '../egress';
import { createEngines, engineHandlers } from '../engines';
import type { VaultService } from '../vault';
import { createWorkspaces, type WorkspaceOptions } from '../workspaces';
import type { Foundations } from './foundations';

/** The local engine's probe: the first thing core's start does, so the status board says what Docker is. */
export function dockerProbe(d: { docker: Docker; status: Foundations['status'] }): CoreModule {
  return { name: 'docker', start: async () => d.status.set('docker', await probeDocker(d.docker)) };
}

/**
 * The engines (local and over SSH), egress by allow-list (confined workspaces go out only through the gateway and
 * its proxy: docs/security.md), and the workspaces on them, with provider tokens from the vault.
 */
export function buildWorkspaces(
  d: Pick<Foundations, 'db' | 'redactor' | 'log' | 'events' | 'status'> & {
    config: CoreConfig;
    dataDir: string;
    docker: Docker;
    vault: VaultService;
    agent: WorkspaceAgent;
    secrets: NonNullable<WorkspaceOptions['secrets']>;
    workerContextDir: string;
    options?: WorkspaceOptions;
  },
) {
  const { config, docker, events, log } = d;
  const engines = createEngines({
    db: d.db,
    local: docker,
    localStatus: () => d.status.get().docker,
    localSocket: config.docker.socketPath,
    vault: d.vault,
    events,
    log,
    dataDir: d.dataDir,
  });
  const egress = new WorkspaceEgress({
    store: new EgressStore(d.db),
    docker,
    network: config.docker.network,
    registries: config.egress.registries,
    log: log.child({ component: 'egress' }),
    portFile: join(d.dataDir, 'egress-port'),
    workspace: (ref) => workspaces.service.get(ref),
    workspaceOfContainer: (id) => workspaces.service.list().find((w) => w.containerId === id) ?? null,
    recipeHosts: (id) => workspaces.recipes.get(id)?.recipe.nexus.egress ?? [],
    onRefused: (workspaceId) => events.emit('egress.refused', { workspaceId }),
  });
  const workspaces = createWorkspaces({
    docker,
    db: d.db,
    events,
    status: d.status,
    log,
    redactor: d.redactor,
    config,
    dataDir: d.dataDir,
    workerContextDir: d.workerContextDir,
    egress,
    options: { secrets: d.secrets, agent: d.agent, engines: engines.registry, ...d.options },
  });
  const modules: CoreModule[] = [
    { name: 'engines', handlers: engineHandlers(engines.service) },
    // Listens once the workers' host address is known (compose/worker-host.ts).
    { name: 'egress', handlers: egressHandlers(egress), dispose: () => egress.dispose() },
    { name: 'workspaces', start: () => workspaces.start(), dispose: () => workspaces.dispose() },
  ];
  return { engines, egress, workspaces, modules };
}
