import type Docker from 'dockerode';
import { resolve } from 'node:path';
import type { CoreConfig } from '../config';
import type { Disposable } from '../disposable';
import type { EventBus } from '../events';
import type { Logger } from '../log';
import type { PlatformService } from '../platform/platform-service';
import type { AppPaths } from '../ports';
import type { Db } from '../store/open';
import { convergeOnWorkspaceStart } from './converge-on-start';
import { forwardHookEvents } from './hook-subscriber';
import type { Redactor } from '../redact';
import { SessionService } from './session-service';
import { SessionTerminals } from './terminal';
import { DockerAttach } from './terminal-attach';
import { DockerExec, type WorkspaceDirectory } from './workspace-runtime';

export interface SessionsWiring {
  db: Db;
  events: EventBus;
  log: Logger;
  config: CoreConfig;
  docker: Docker;
  paths: AppPaths;
  redactor: Redactor;
  /** The workspaces service, seen through the small interface sessions need. */
  workspaces: WorkspaceDirectory;
  /** Issues each workspace's publish-only hook user, delivers hook events, and gives each session a run (core.platform). */
  platform: Pick<
    PlatformService,
    'createHookPublisher' | 'onHookEvent' | 'agents' | 'createAgent' | 'createRun' | 'endRun'
  >;
}

/**
 * Builds the sessions service for createCore, subscribes it to hook events and to workspace
 * starts (converge). The worker tools come from `npm run build` (dist/worker). Dispose the
 * returned subscriptions with core; call `sessions.converge()` once at start-up.
 */
export function createSessionService(w: SessionsWiring): {
  sessions: SessionService;
  terminals: SessionTerminals;
  subscriptions: Disposable;
} {
  const exec = new DockerExec(w.docker);
  const dist = resolve(w.paths.workerContextDir, '..', '..', 'dist', 'worker');
  const sessions = new SessionService({
    db: w.db,
    events: w.events,
    log: w.log,
    config: w.config.sessions,
    workspaces: w.workspaces,
    exec,
    tools: { hookScript: resolve(dist, 'nexus-hook.cjs'), inboxSendScript: resolve(dist, 'nexus-inbox-send.cjs') },
    hookTarget: async (workspaceId) => {
      const c = await w.platform.createHookPublisher(workspaceId);
      return { url: c.natsUrl, ...(c.user ? { user: c.user, pass: c.password ?? '' } : {}) };
    },
    maxSessionsPerWorkspace: w.config.quota.maxSessionsPerWorkspace,
    platform: w.platform,
  });
  const hooks = forwardHookEvents(w.platform, sessions, w.log);
  const starts = convergeOnWorkspaceStart(w.events, sessions, w.log);
  const terminals = new SessionTerminals({
    liveWindow: (id) => sessions.liveWindow(id),
    exec,
    attach: new DockerAttach(w.docker),
    config: w.config.sessions,
    redactor: w.redactor,
    log: w.log.child({ component: 'terminal' }),
  });
  return { sessions, terminals, subscriptions: { dispose: () => (hooks.dispose(), starts.dispose()) } };
}
