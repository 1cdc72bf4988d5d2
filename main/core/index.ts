import { join } from 'node:path';
import { AuditLog } from './audit/audit-log';
import { appHandlers } from './app/app-handlers';
import { AttentionService } from './attention/attention-service';
import { StatusBoard } from './app/status';
import { CoreConfig, type CoreConfigInput } from './config';
import { DisposableStore, toDisposable } from './disposable';
import { Dispatcher } from './dispatch';
import { createDockerClient, probeDocker } from './docker/engine';
import { workspaceHandlers } from './docker/workspace-handlers';
import { createWorkspaces, type WorkspaceOptions } from './docker/workspaces';
import type { WorkspaceService } from './docker/workspace-service';
import { sessionHandlers } from './sessions/session-handlers';
import { EventBus } from './events';
import type { Handlers } from './handlers';
import { createLogger, type Logger } from './log';
import type { CorePorts } from './ports';
import { Redactor } from './redact';
import { openStore, type Db } from './store/open';

export interface Core {
  config: CoreConfig;
  ports: CorePorts;
  db: Db;
  log: Logger;
  redactor: Redactor;
  events: EventBus;
  status: StatusBoard;
  audit: AuditLog;
  dispatcher: Dispatcher;
  workspaces: WorkspaceService;
  attention: AttentionService;
  /** Closes every process, socket, subscription and file core opened. */
  dispose(): Promise<void>;
}

/** Optional collaborators of features built on other branches (vault secrets, session state). */
export interface CoreOptions {
  workspaces?: WorkspaceOptions;
}

/** The one composition root: every service is built here with plain constructors. */
export async function createCore(configInput: CoreConfigInput, ports: CorePorts, options: CoreOptions = {}): Promise<Core> {
  const config = CoreConfig.parse(configInput);
  const startedAt = new Date();
  const dataDir = ports.paths.dataDir;
  const disposables = new DisposableStore();

  const redactor = new Redactor();
  redactor.addEnvSecrets(process.env);
  const log = createLogger({ file: join(dataDir, 'logs', 'nexus.log'), stderr: config.logToStderr, redactor });
  const events = new EventBus(redactor);
  const status = new StatusBoard(events);

  const db = openStore(join(dataDir, 'nexus.db'));
  disposables.add(toDisposable(() => void db.close()));
  const audit = new AuditLog(db);

  const docker = createDockerClient(config.docker.socketPath);
  status.set('docker', await probeDocker(docker));
  // --- workspaces (Docker) ---
  const workspaces = await createWorkspaces({ docker, db, events, status, log, redactor, config, dataDir, workerContextDir: ports.paths.workerContextDir, disposables, options: options.workspaces });

  const attention = disposables.add(
    new AttentionService({ dispatcher: () => dispatcher, events, notifier: ports.notifier, log }),
  );

  const handlers: Handlers = {
    ...appHandlers({ version: config.version, dataDir, startedAt, status }),
    ...workspaceHandlers(workspaces.service),
    ...sessionHandlers(),
    'attention.get': () => attention.get(),
  };
  const dispatcher = new Dispatcher(handlers, { redactor, log, audit });

  log.info('core started', { version: config.version, dataDir });
  return {
    config,
    ports,
    db,
    log,
    redactor,
    events,
    status,
    audit,
    dispatcher,
    workspaces: workspaces.service,
    attention,
    dispose: async () => {
      log.info('core stopping');
      await disposables.dispose();
    },
  };
}

export type { CorePorts } from './ports';
