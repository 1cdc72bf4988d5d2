import { join } from 'node:path';
import { AgentCli } from './agent/agent-cli';
import { agentHandlers } from './agent/agent-handlers';
import { AgentService } from './agent/agent-service';
import { workspaceAgent } from './agent/workspace-agent';
import { AuditLog } from './audit/audit-log';
import { appHandlers } from './app/app-handlers';
import { AttentionService } from './attention/attention-service';
import { StatusBoard } from './app/status';
import { CoreConfig, type CoreConfigInput } from './config';
import { DisposableStore, toDisposable } from './disposable';
import { Dispatcher } from './dispatch';
import { createDockerClient, probeDocker } from './workspaces/engine';
import { learnWorkerHost, workerBridge } from './workspaces/network';
import { workspaceHandlers } from './workspaces/workspace-handlers';
import { createWorkspaces, vaultSecretSource, type WorkspaceOptions } from './workspaces/workspaces';
import type { WorkspaceService } from './workspaces/workspace-service';
import { sessionHandlers } from './sessions/session-handlers';
import type { PermissionRequests } from './sessions/permission-requests';
import { createSessions } from './sessions/create-sessions';
import { shipHandlers } from './sessions/session-changes-handlers';
import { SessionShip } from './sessions/session-changes-service';
import type { SessionService } from './sessions/session-service';
import type { SessionTerminals } from './sessions/terminal';
import { PlatformService } from './platform/platform-service';
import { platformHandlers } from './platform/platform-handlers';
import { platformRecords } from './platform/platform-records';
import { autoStartFor, externalMcpFor } from './sessions/session-platform';
import { ReviewQueue } from './review/review-queue';
import { reviewHandlers } from './review/review-handlers';
import { openToolsDb } from './platform/store/tools-db';
import { EventBus } from './events';
import { actorOf, type Handlers } from './handlers';
import { createLogger, type Logger } from './log';
import type { CorePorts } from './ports';
import { Redactor } from './redact';
import { openStore, type Db } from './store/open';
import { VaultService } from './vault/vault';
import { vaultHandlers } from './vault/vault-handlers';
import { TokenService } from './tokens/tokens';
import { tokenHandlers } from './tokens/token-handlers';
import { ConnectService, connectHandlers } from './mcp/connect';
import type { FleetService } from './mcp/fleet/fleet';
import { createFleet, fleetHandlers } from './mcp/fleet/wire';
import { engineHandlers } from './engines/engine-handlers';
import type { EngineService } from './engines/engine-service';
import { createEngines } from './engines/wire';

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
  sessions: SessionService;
  /** Live terminals of sessions (the host's /api/terminal WebSocket adapts it). */
  terminals: SessionTerminals;
  /** Permission requests from the agents' PermissionRequest hooks, held for the operator. */
  permissions: PermissionRequests;
  attention: AttentionService;
  /** The pinned agent CLI: where workers get it (agent.cliDir, else an npm install into the data dir). */
  agentCli: AgentCli;
  /** Settings → Agent: the default agent credential, the model endpoint, the mode sessions start in. */
  agent: AgentService;
  /** Vault lifecycle, principals and secrets; `vault.resolveSecret(id)` is the Docker code's way to a token. */
  vault: VaultService;
  /** Platform tools over NATS: agents, runs (per-run NATS users), hook events. */
  platform: PlatformService;
  review: ReviewQueue;
  /** MCP tokens: `tokens.authenticate(secret)` is how the /api/mcp gate knows its caller. */
  tokens: TokenService;
  /** The MCP endpoint URL (from the host port), Claude Desktop's config entry and the Claude Code line. */
  connect: ConnectService;
  /** Sessions as MCP clients: each workspace's fleet credential and the worker listener's URL. */
  fleet: FleetService;
  /** Docker engines workspaces live on: the local one and remote ones (SSH, TLS). */
  engines: EngineService;
  /** Closes every process, socket, subscription and file core opened. */
  dispose(): Promise<void>;
}

/** Collaborators a caller may replace (tests: the workspaces' secret source). */
export interface CoreOptions {
  workspaces?: WorkspaceOptions;
}

/** The one composition root: every service is built here with plain constructors. */
export async function createCore(
  configInput: CoreConfigInput,
  ports: CorePorts,
  options: CoreOptions = {},
): Promise<Core> {
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
  disposables.add(toDisposable(() => audit.flush()));

  const agentCli = new AgentCli({ dataDir, cliDir: config.agent.cliDir });
  const docker = createDockerClient(config.docker.socketPath);
  status.set('docker', await probeDocker(docker));

  const vault = new VaultService({
    db,
    keychain: ports.keychain,
    redactor,
    log: log.child({ component: 'vault' }),
    events,
    status,
    dataDir,
    keyFile: config.vault.keyFile,
  });
  disposables.add(toDisposable(() => vault.dispose()));
  await vault.start();
  const agent = new AgentService({
    db,
    cli: agentCli,
    config: config.agent,
    secrets: () => vault.secrets.list(),
    events,
  });
  const engines = createEngines({
    db,
    local: docker,
    localStatus: () => status.get().docker,
    localSocket: config.docker.socketPath,
    vault,
    events,
    log,
    dataDir,
  });
  // Workspaces (Docker); provider tokens come from the vault.
  const workspaces = await createWorkspaces({
    docker,
    db,
    events,
    status,
    log,
    redactor,
    config,
    dataDir,
    workerContextDir: ports.paths.workerContextDir,
    disposables,
    options: {
      secrets: vaultSecretSource(vault),
      agent: workspaceAgent({
        cli: agentCli,
        agent,
        resolve: (id) => vault.resolveSecret(id),
        engineArchitecture: async () => ((await docker.info()) as { Architecture: string }).Architecture,
        addSecret: (v) => redactor.addSecret(v),
      }),
      engines: engines.registry,
      ...options.workspaces,
    },
  });
  const toolsDb = openToolsDb(join(dataDir, 'nexus.db'));
  disposables.add(toDisposable(() => void toolsDb.close()));
  const review = new ReviewQueue(toolsDb, events, audit);
  const platform = disposables.add(
    new PlatformService({ db: toolsDb, config, dataDir, status, redactor, log, audit, review }),
  );
  const workerHost = disposables.add(
    await learnWorkerHost({
      docker,
      network: config.docker.network,
      events,
      status,
      log,
      later: (address) => platform.moveTo(address),
    }),
  );
  await platform.start(workerHost.now);
  const { records, board } = platformRecords(platform, toolsDb, events, disposables);
  const tokens = new TokenService(db, { vault, events, log: log.child({ component: 'tokens' }) });
  const { fleet, subscription: fleetRemoved } = createFleet({
    db,
    tokens,
    keychain: ports.keychain,
    host: ports.host,
    dataDir,
    config,
    log,
    workspaces: workspaces.service,
    signals: workspaces.signals,
    resolvers: {
      workspaceIdOf: (ref) => workspaces.service.get(ref).id,
      sessionWorkspaceOf: async (ref) => (await sessions.get(ref)).workspaceId,
    },
    sessionInWorkspace: (id, ws) => sessions.inWorkspace(id, ws),
    bridge: () => workerBridge(docker, config.docker.network),
  });
  disposables.add(fleetRemoved);
  const {
    service: sessions,
    terminals,
    permissions,
  } = await createSessions({
    db,
    audit,
    events,
    log,
    config,
    paths: ports.paths,
    redactor,
    disposables,
    runtime: workspaces.runtime,
    signals: workspaces.signals,
    platform,
    fleet: (workspaceId, sessionId) => fleet.mcpEntry(workspaceId, sessionId),
    external: externalMcpFor({ platform, vault, redactor, config, log }),
  });
  disposables.add(autoStartFor({ db: toolsDb, platform, events, sessions, log }));
  void sessions.converge().catch((e: unknown) => log.warn('session converge at start-up failed', { error: e }));
  // Review and ship: changes, push with the vault secret, refreshed on Stop hooks.
  const ship = new SessionShip({
    sessions,
    runtime: workspaces.runtime,
    remoteOf: (id) => workspaces.service.store.find(id),
    secrets: vaultSecretSource(vault),
    redactor,
    events,
    log: log.child({ feature: 'ship' }),
    config: config.sessions,
  });
  disposables.add(ship.followStops(platform));
  disposables.add(ship.followStarts(workspaces.signals));
  const attention = disposables.add(
    new AttentionService({
      sources: {
        workspaces: () => Promise.resolve(workspaces.service.list()),
        sessions: () => sessions.list(),
        reviewCounts: () => {
          const c = review.counts();
          return { memories: c.pendingMemories, skills: c.draftSkills };
        },
      },
      events,
      notifier: ports.notifier,
      redactor,
      log,
    }),
  );
  const connect = new ConnectService({
    tokens,
    keychain: ports.keychain,
    host: ports.host,
    log,
    dataDir,
    launcher: config.mcp.stdioLauncher,
    claudeDesktopConfig: config.mcp.claudeDesktopConfig,
  });

  const handlers: Handlers = {
    ...appHandlers({ version: config.version, dataDir, startedAt, status, agentCli: () => agentCli.info() }),
    ...workspaceHandlers(workspaces.service),
    ...sessionHandlers(sessions),
    ...shipHandlers(ship),
    'attention.get': () => attention.get(),
    'attention.summary': () => attention.summary(),
    'attention.sessions': (input) => attention.sessions(input),
    ...vaultHandlers(vault),
    ...platformHandlers(platform, { records, board, workspaceId: (ref) => workspaces.runtime.info(ref).id }),
    ...reviewHandlers(review),
    ...tokenHandlers(tokens),
    ...connectHandlers(connect),
    ...fleetHandlers(fleet, workspaces.service, workspaceHandlers(workspaces.service)['workspaces.create']),
    ...agentHandlers(agent),
    ...engineHandlers(engines.service),
    'permissions.list': (input) => ({ requests: permissions.list(input.sessionId) }),
    'permissions.decide': ({ id, behavior, note }, ctx) => ({
      request: permissions.decide(
        id,
        behavior === 'allow' ? { behavior } : { behavior, ...(note ? { message: note } : {}) },
        actorOf(ctx.caller),
        ctx.transport,
      ),
    }),
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
    sessions,
    terminals,
    permissions,
    attention,
    agentCli,
    agent,
    vault,
    platform,
    review,
    tokens,
    connect,
    fleet,
    engines: engines.service,
    dispose: async () => {
      log.info('core stopping');
      await disposables.dispose();
    },
  };
}

export type { CorePorts } from './ports';
