import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { acpHandlers, agentHandlers, AgentDrivers, AgentService, workspaceAgent } from './agents';
import { egressHandlers, EgressStore, WorkspaceEgress } from './egress';
import { gatewayHandlers, ModelGateway, RESUME_MESSAGE } from './gateway';
import { appHandlers, StatusBoard } from './app';
import { attentionHandlers, fleetAttention } from './attention';
import { AuditLog } from './audit';
import { CoreConfig, type CoreConfigInput } from './config';
import type { Core } from './core-api';
import { Dispatcher } from './dispatch';
import { DisposableStore, toDisposable } from './disposable';
import { EventBus } from './events';
import { mergeHandlers, type Handlers } from './handlers';
import { createLogger, type Logger } from './log';
import { ConnectService, connectHandlers, createFleet, fleetHandlers, fleetStep, createMcpGate } from './mcp';
import { permissionHandlers, ruleHandlers } from './permissions';
import {
  platformHandlers,
  platformRecords,
  PlatformService,
  openToolsDb,
  reviewHandlers,
  ReviewQueue,
} from './platform';
import type { CorePorts } from './ports';
import { Redactor } from './redact';
import { createReviewTalk } from './review';
import { createSessions, sessionHandlers, autoStartFor, externalMcpFor, createSessionSetup } from './sessions';
import { shipHandlers, SessionShip } from './ship';
import { openStore } from './store';
import { tokenHandlers, TokenService } from './tokens';
import { CoreSecrets, SealedCoreSecrets, VaultService, vaultHandlers } from './vault';
import { createDockerClient, learnWorkerHost, ownerIdFor, probeDocker, workerBridge } from './docker';
import { workspaceHandlers, createWorkspaces, vaultSecretSource, type WorkspaceOptions } from './workspaces';
import { ConnectorService, connectorHandlers, activityHandler } from './connectors';
import { PhoneService, phoneHandlers } from './phone';
import { engineHandlers, createEngines, joinPlatform } from './engines';
import { createTracker } from './tracker';
import { createPreviews } from './previews';

/** Collaborators a caller may replace (tests: the workspaces' secret source). */
export interface CoreOptions {
  workspaces?: WorkspaceOptions;
}

/**
 * The one composition root. Every service is built here with plain constructors, each from what
 * was built before it (no closure reaches forward), then `start` brings them up in order: the
 * engine probe, the vault, the workspaces' Docker watch, the platform's NATS server, the fleet's
 * credential sweep, the sessions' converge. A failed start closes what was built.
 */
export async function createCore(
  configInput: CoreConfigInput,
  ports: CorePorts,
  options: CoreOptions = {},
): Promise<Core> {
  const config = CoreConfig.parse(configInput);
  const startedAt = new Date();
  const dataDir = ports.paths.dataDir;
  const base = foundations(config, dataDir);
  const { redactor, log, events, status, db, audit, disposables } = base;

  // The vault, and the agent settings that read its secrets.
  const drivers = new AgentDrivers({ dataDir, launch: config.sessions, kinds: config.agent.kinds });
  const docker = createDockerClient(config.docker.socketPath);
  const vault = new VaultService({
    ...base,
    keychain: ports.keychain,
    log: log.child({ component: 'vault' }),
    keyFile: config.vault.keyFile,
  });
  disposables.add(toDisposable(() => vault.dispose()));
  const vaultSecrets = vaultSecretSource(vault);
  // Core's own secrets (fleet, Claude Desktop's token): the OS keychain, else the vault or the data dir.
  const coreSecrets = new CoreSecrets({
    keychain: ports.keychain,
    sealed: new SealedCoreSecrets(db, vault),
    redactor,
    log: log.child({ component: 'core-secrets' }),
    dataDir,
  });
  const agent = new AgentService({
    db,
    drivers,
    configuredMode: config.sessions.permissionMode,
    secrets: () => vault.secrets.list(),
    events,
  });
  const localSocket = config.docker.socketPath;
  const engines = createEngines({ ...base, local: docker, localStatus: () => status.get().docker, localSocket, vault });
  // Workspaces (Docker); provider tokens come from the vault.
  const agentInWorkspaces = workspaceAgent({
    drivers,
    agent,
    resolve: (id) => vault.resolveSecret(id),
    engineArchitecture: async () => ((await docker.info()) as { Architecture: string }).Architecture,
  });
  // Egress by allow-list: confined workspaces go out only through the gateway and this proxy (docs/security.md).
  const egress = disposables.add(
    new WorkspaceEgress({
      store: new EgressStore(db),
      docker,
      network: config.docker.network,
      log: log.child({ component: 'egress' }),
      portFile: join(dataDir, 'egress-port'),
      workspace: (ref) => workspaces.service.get(ref),
      workspaceOfContainer: (id) => workspaces.service.list().find((w) => w.containerId === id) ?? null,
      recipeHosts: (id) => workspaces.recipes.get(id)?.recipe.nexus.egress ?? [],
      onRefused: (workspaceId) => events.emit('egress.refused', { workspaceId }),
    }),
  );
  const workspaces = createWorkspaces({
    ...base,
    docker,
    egress,
    workerContextDir: ports.paths.workerContextDir,
    options: {
      secrets: vaultSecrets,
      agent: agentInWorkspaces,
      engines: engines.registry,
      ...options.workspaces,
    },
  });

  // Platform tools over NATS, the review queue, agent records and the board.
  const toolsDb = openToolsDb(join(dataDir, 'nexus.db'));
  disposables.add(toDisposable(() => void toolsDb.close()));
  const review = new ReviewQueue(toolsDb, events, audit);
  const platform = disposables.add(
    new PlatformService({ db: toolsDb, config, dataDir, status, redactor, log, audit, review }),
  );
  const { records, board } = platformRecords(platform, toolsDb, events, disposables);

  // MCP tokens and the fleet (its scope reads sessions from the store, so it comes before them).
  const tokens = new TokenService(db, { vault, events, log: log.child({ component: 'tokens' }) });
  const fleetModule = createFleet({
    ...base,
    tokens,
    secrets: coreSecrets,
    host: ports.host,
    workspaces: workspaces.service,
    runtime: workspaces.runtime,
    signals: workspaces.signals,
    bridge: () => workerBridge(docker, config.docker.network),
  });
  const fleet = fleetModule.fleet;
  disposables.add(fleetModule.subscription);
  // Workers on remote engines reach NATS and the fleet listener through their engine's leaf node.
  const leaves = joinPlatform({
    registry: engines.registry,
    platform,
    fleet,
    runtime: workspaces.runtime,
    // The gateway is made below; the leaves ask for its address only when one starts.
    gatewayTarget: () => gateway.listenerAddress(),
    natsBinary: config.nats.binary,
    leafForwarder: config.nats.leafForwarder,
    owner: ownerIdFor(dataDir),
    log,
  });
  disposables.add(toDisposable(() => leaves.dispose()));

  // The model gateway: every session's model traffic, signed in core with the vault's credential, counted, capped.
  const gateway = new ModelGateway({
    db,
    drivers,
    log,
    redactor,
    events,
    credentialFor: async (workspaceId, kind) =>
      agentInWorkspaces.credential(workspaces.service.get(workspaceId).agentSecretId, kind),
    hasCredential: (workspaceId, kind) => agent.hasCredential(workspaces.service.get(workspaceId).agentSecretId, kind),
    taskOf: (sessionId) => sessions.taskOf(sessionId),
    budgetReached: (sessionId, message) => sessions.waitOnOperator(sessionId, message),
    budgetCleared: (sessionId) => {
      sessions.releaseOperatorWait(sessionId);
      // It goes on where it stopped, through the consent-free message path (it can answer no permission).
      sessions
        .sendMessage(sessionId, 'Nexus: the budget was raised; go on where you stopped.')
        .catch((e: unknown) => log.warn('resuming a session after its budget was raised failed', { error: e }));
    },
    // A usage limit: the session's row keeps it; at the reset a CLI that gave up goes on through the message path.
    limits: {
      mark: (sessionId, limit) => sessions.setUsageLimit(sessionId, limit),
      view: (sessionId) => sessions.usageLimitView(sessionId),
      resume: (sessionId) => sessions.sendMessage(sessionId, RESUME_MESSAGE),
    },
    portFile: join(dataDir, 'gateway-port'),
    config: {
      port: config.gateway.port,
      upstreamCa: config.gateway.upstreamCa ? readFileSync(config.gateway.upstreamCa, 'utf8') : undefined,
    },
  });
  // Workers on a remote engine reach it through their engine's link, relayed by its leaf (as NATS is).
  gateway.routeWorkers((workspaceId) => leaves.gatewayBase(workspaceId));

  // Each session's setup, run, files and ports from its repository's recipe (sessions/setup/).
  const sessionSetup = createSessionSetup({
    ...base,
    config: config.sessions,
    runtime: workspaces.runtime,
    recipes: workspaces.recipes,
    secret: async (id) => (await vault.resolveSecret(id)).value,
  });
  disposables.add(sessionSetup.subscription);
  // Sessions, auto-start of delegated tasks, and review-and-ship (changes, push with the vault secret).
  const {
    service: sessions,
    terminals,
    permissions,
    rules,
    acp,
  } = await createSessions({
    ...base,
    paths: ports.paths,
    runtime: workspaces.runtime,
    signals: workspaces.signals,
    drivers,
    gateway,
    platform,
    fleet: (workspaceId, sessionId) => fleet.mcpEntry(workspaceId, sessionId),
    external: externalMcpFor({ platform, vault, redactor, config, log }),
    setup: sessionSetup.setup,
  });
  disposables.add(autoStartFor({ db: toolsDb, platform, events, sessions, log }));
  disposables.add(toDisposable(() => gateway.close()));
  gateway.limits?.rearm(sessions.usageLimited());
  const ship = new SessionShip({
    sessions,
    runtime: workspaces.runtime,
    remoteOf: (id) => workspaces.remoteOf(id),
    secrets: vaultSecrets,
    redactor,
    events,
    log: log.child({ feature: 'ship' }),
    config: config.sessions,
  });
  disposables.add(ship.followStops());
  // Review that talks back: a checkpoint per turn, the conflict radar, comments on diff lines sent to the agent.
  const talk = createReviewTalk(
    {
      sessions,
      runtime: workspaces.runtime,
      events,
      log: log.child({ feature: 'review' }),
      config: config.sessions,
      changes: (ref) => ship.summary(ref),
    },
    db,
  );
  // Live previews of each session's app at origins of their own, and their screenshots at each turn end.
  const previews = createPreviews({
    sessions,
    runtime: workspaces.runtime,
    docker: (engine) => engines.registry.docker(engine),
    config: config.sessions,
    hostUrl: () => ports.host.url(),
    // A port in the session's reserved block (PORT, NEXUS_PORTS) is its preview even when no cwd says so.
    portsOf: (id) => {
      const b = sessionSetup.ports.of(id);
      return b ? { from: b.first, to: b.last } : null;
    },
    // The recipe's forwardPorts (devcontainer.json) are previews of every session of the workspace.
    forwardedPorts: (id) => workspaces.recipes.get(id)?.recipe.forwardPorts ?? [],
    events,
    log: log.child({ feature: 'previews' }),
    dataDir,
  });
  disposables.add(previews);
  // The board mirrored on a workspace's tracker, and sessions started from its issues.
  const tracker = createTracker({
    db: toolsDb,
    platform,
    workspace: (ref) => workspaces.runtime.info(ref),
    sessions,
    secrets: { list: () => vault.secrets.list(), resolve: (id) => vault.resolveSecret(id) },
    onPushed: (l) => ship.onPushed(l),
    events,
    config: config.tracker,
    log,
    disposables,
  });

  // What needs the operator, and how MCP clients connect.
  const attention = disposables.add(
    fleetAttention({
      workspaces: workspaces.service,
      sessions,
      review,
      events,
      notifier: ports.notifier,
      redactor,
      log,
    }),
  );
  const connect = new ConnectService({
    tokens,
    secrets: coreSecrets,
    host: ports.host,
    log,
    dataDir,
    launcher: config.mcp.stdioLauncher,
    claudeDesktopConfig: config.mcp.claudeDesktopConfig,
  });

  const remote = new ConnectorService(db, { log: log.child({ component: 'remote' }), audit });
  const phone = new PhoneService(db, {
    remote,
    audit,
    log: log.child({ component: 'phone' }),
    dek: () => (vault.status().state === 'unlocked' ? vault.requireDek() : null),
  });
  disposables.add(phone.follow(events));
  // One handler map: each operation answered by exactly one module (a second one throws).
  const handlers: Handlers = mergeHandlers(
    appHandlers({
      version: config.version,
      dataDir,
      startedAt,
      status,
      agentClis: () => drivers.all.map((d) => ({ kind: d.kind, label: d.label, cli: d.cli.info() })),
    }),
    workspaceHandlers(workspaces.service, fleetStep(fleet)),
    sessionHandlers(sessions),
    acpHandlers(acp, (ref) => sessions.ref(ref)),
    shipHandlers(ship),
    talk.handlers,
    previews.handlers,
    sessionSetup.handlers,
    attentionHandlers(attention),
    vaultHandlers(vault),
    platformHandlers(platform, { records, board, workspaceId: (ref) => workspaces.runtime.info(ref).id }),
    reviewHandlers(review),
    tokenHandlers(tokens),
    connectHandlers(connect),
    fleetHandlers(fleet, workspaces.service),
    agentHandlers(agent),
    permissionHandlers(permissions),
    ruleHandlers(rules, permissions),
    connectorHandlers(remote),
    phoneHandlers(phone),
    activityHandler({ db, audit, tokens, remote }),
    engineHandlers(engines.service),
    tracker.handlers,
    egressHandlers(egress),
    gatewayHandlers(gateway, {
      session: (ref) => sessions.ref(ref),
      workspace: (ref) => workspaces.runtime.info(ref),
    }),
  );
  const dispatcher = new Dispatcher(handlers, { redactor, log, audit });

  const start = async (): Promise<void> => {
    status.set('docker', await probeDocker(docker));
    await vault.start();
    await workspaces.start();
    const workerHost = disposables.add(
      await learnWorkerHost({
        docker,
        network: config.docker.network,
        events,
        status,
        log,
        later: (address) => {
          void gateway.listen(address).catch((e: unknown) => log.warn('model gateway did not listen', { error: e }));
          void egress.listen(address).catch((e: unknown) => log.warn('egress proxy did not listen', { error: e }));
          return platform.moveTo(address);
        },
      }),
    );
    await platform.start(workerHost.now);
    // ACP sessions' bridges that outlived a previous core say hello, then send what this core has not processed.
    acp.wake();
    if (workerHost.now) await gateway.listen(workerHost.now);
    if (workerHost.now) await egress.listen(workerHost.now);
    fleetModule.start();
    tracker.start();
    void sessions.converge().catch((e: unknown) => log.warn('session converge at start-up failed', { error: e }));
    disposables.add(talk.start());
    disposables.add(previews.start());
    void leaves.restore();
  };
  await startOrClose(start, disposables, log);
  log.info('core started', { version: config.version, dataDir });

  return {
    config,
    ports,
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
    rules,
    attention,
    drivers,
    agent,
    vault,
    platform,
    review,
    tokens,
    connect,
    fleet,
    previews: previews.front,
    mcpGate: (opts) => createMcpGate({ dispatcher, audit, config, tokens, log, fleet }, opts),
    remote,
    engines: engines.service,
    phone,
    dispose: async () => {
      log.info('core stopping');
      await disposables.dispose();
    },
  };
}

/** What every module is built on: redaction, the log, events, status, the database, its audit log, and what closes them. */
function foundations(config: CoreConfig, dataDir: string) {
  const disposables = new DisposableStore();
  const redactor = new Redactor();
  redactor.addEnvSecrets(process.env);
  const log = createLogger({ file: join(dataDir, 'logs', 'nexus.log'), stderr: config.logToStderr, redactor });
  const events = new EventBus(redactor, log);
  const status = new StatusBoard(events);
  const db = openStore(join(dataDir, 'nexus.db'));
  disposables.add(toDisposable(() => void db.close()));
  const audit = new AuditLog(db);
  disposables.add(toDisposable(() => audit.close()));
  return { config, dataDir, disposables, redactor, log, events, status, db, audit };
}

export type { Core, CoreApi } from './core-api';
export type { CorePorts } from './ports';

/** Runs core's start; when it fails, closes what was built (logging what would not close) and rethrows. */
async function startOrClose(start: () => Promise<void>, disposables: DisposableStore, log: Logger): Promise<void> {
  try {
    await start();
  } catch (e) {
    await disposables.dispose().catch((d: unknown) => log.warn('closing after a failed start failed', { error: d }));
    throw e;
  }
}
