import { homedir } from 'node:os';
import { join } from 'node:path';
import type Docker from 'dockerode';
import type { AppStatus, SecretSummary } from '../../../shared/contract';
import type { EventBus } from '../events';
import type { Logger } from '../log';
import type { Db } from '../store';
import { ownerIdFor } from '../docker';
import { EngineRegistry } from './engine-registry';
import { EngineService } from './engine-service';
import { EngineStore } from './engine-store';

export interface Engines {
  registry: EngineRegistry;
  service: EngineService;
}

/** Builds the engines module: the store, the run-time registry (the workspaces' port), the operations. */
export function createEngines(w: {
  db: Db;
  local: Docker;
  localStatus: () => AppStatus['docker'];
  localSocket: string;
  vault: {
    resolveSecret(id: string): Promise<{ value: string; kind: string }>;
    secrets: { list(): SecretSummary[] };
  };
  events: EventBus;
  log: Logger;
  dataDir: string;
}): Engines {
  const log = w.log.child({ feature: 'engines' });
  const store = new EngineStore(w.db);
  let service: EngineService | null = null;
  const registry = new EngineRegistry({
    store,
    local: w.local,
    localStatus: w.localStatus,
    resolveSecret: (id) => w.vault.resolveSecret(id),
    log,
    owner: ownerIdFor(w.dataDir),
    changed: (id) => {
      try {
        service?.changed(id);
      } catch {
        // removed meanwhile: its removal was published
      }
    },
  });
  service = new EngineService({
    store,
    registry,
    events: w.events,
    log,
    secretKind: (ref) => w.vault.secrets.list().find((s) => s.id === ref || s.name === ref)?.kind ?? null,
    localUrl: `unix://${w.localSocket}`,
    dockerDir: process.env.DOCKER_CONFIG ?? join(homedir(), '.docker'),
  });
  return { registry, service };
}
