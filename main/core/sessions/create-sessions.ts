import type Docker from 'dockerode';
import { resolve } from 'node:path';
import type { CoreConfig } from '../config';
import type { EventBus } from '../events';
import type { Logger } from '../log';
import type { AppPaths } from '../ports';
import type { Db } from '../store/open';
import type { HookTarget } from './session-machinery';
import { SessionService } from './session-service';
import { DockerExec, type WorkspaceDirectory } from './workspace-runtime';

export interface SessionsWiring {
  db: Db;
  events: EventBus;
  log: Logger;
  config: CoreConfig;
  docker: Docker;
  paths: AppPaths;
  /** The workspaces service, seen through the small interface sessions need. */
  workspaces: WorkspaceDirectory;
  /** Publish-only NATS credentials for nexus.hooks.<workspaceId> (from the platform service). */
  hookTarget(workspaceId: string): HookTarget | null | Promise<HookTarget | null>;
}

/** Builds the sessions service for createCore; the worker tools come from `npm run build` (dist/worker). */
export function createSessionService(w: SessionsWiring): SessionService {
  const dist = resolve(w.paths.workerContextDir, '..', '..', 'dist', 'worker');
  return new SessionService({
    db: w.db,
    events: w.events,
    log: w.log,
    config: w.config.sessions,
    workspaces: w.workspaces,
    exec: new DockerExec(w.docker),
    tools: { hookScript: resolve(dist, 'nexus-hook.cjs'), inboxSendScript: resolve(dist, 'nexus-inbox-send.cjs') },
    hookTarget: w.hookTarget,
    maxSessionsPerWorkspace: w.config.quota.maxSessionsPerWorkspace,
  });
}
