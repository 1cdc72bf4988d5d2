import { acpHandlers, type AgentDrivers } from '../agents';
import type { CoreConfig } from '../config';
import type { CoreModule } from '../core-module';
import { toDisposable } from '../disposable';
import { openSshBinary, type Engines } from '../engines';
import type { ModelGateway } from '../gateway';
import type { DelegationService } from '../mcp';
import { permissionHandlers, ruleHandlers } from '../permissions';
import type { NameLookup, PlatformService } from '../platform';
import type { CorePorts } from '../ports';
import { createPreviews } from '../previews';
import { createReviewTalk } from '../review';
import { autoStartFor, createSessions, createSessionSetup, externalMcpFor, sessionHandlers } from '../sessions';
import { SessionShip, shipHandlers } from '../ship';
import { createTracker } from '../tracker';
import type { VaultService } from '../vault';
import type { WorkspaceOptions, Workspaces } from '../workspaces';
import type { Foundations } from './foundations';

/**
 * Sessions with their setup from the repository's recipe, auto-start of delegated tasks, review-and-ship, review that
 * talks back (a checkpoint per turn, the conflict radar, comments to the agent), live previews, and the board
 * mirrored on a workspace's tracker.
 */
export function buildSessions(
  d: Pick<Foundations, 'db' | 'redactor' | 'log' | 'events' | 'audit'> & {
    config: CoreConfig;
    dataDir: string;
    ports: CorePorts;
    vault: VaultService;
    secrets: NonNullable<WorkspaceOptions['secrets']>;
    drivers: AgentDrivers;
    workspaces: Workspaces;
    engines: Engines;
    platform: PlatformService;
    toolsDb: Parameters<typeof autoStartFor>[0]['db'];
    names: NameLookup;
    delegation: DelegationService;
    gateway: ModelGateway;
  },
) {
  const { config, workspaces, events, log, redactor, vault, platform } = d;
  const setup = createSessionSetup({
    db: d.db,
    events,
    log,
    redactor,
    config: config.sessions,
    runtime: workspaces.runtime,
    recipes: workspaces.recipes,
    secret: async (id) => (await vault.resolveSecret(id)).value,
  });
  const created = createSessions({
    db: d.db,
    events,
    log,
    config,
    paths: d.ports.paths,
    redactor,
    audit: d.audit,
    runtime: workspaces.runtime,
    signals: workspaces.signals,
    drivers: d.drivers,
    gateway: d.gateway,
    platform,
    delegatedEntry: (workspaceId, sessionId) => d.delegation.mcpEntry(workspaceId, sessionId),
    external: externalMcpFor({ platform, vault, redactor, config, log }),
    setup: setup.setup,
    agentCli: {
      present: (ws, kind) => workspaces.agentCli.present(ws.id, kind),
      bring: (ws, kind, progress) => workspaces.agentCli.bring(ws.id, kind, progress),
    },
  });
  const sessions = created.service;
  const ship = new SessionShip({
    sessions,
    runtime: workspaces.runtime,
    remoteOf: (id) => workspaces.remoteOf(id),
    secrets: d.secrets,
    redactor,
    events,
    log: log.child({ feature: 'ship' }),
    config: config.sessions,
  });
  const talk = createReviewTalk(
    {
      sessions,
      runtime: workspaces.runtime,
      events,
      log: log.child({ feature: 'review' }),
      config: config.sessions,
      relayCheckpoint: (workspaceId, payload, timeoutMs) => platform.relayCheckpoint(workspaceId, payload, timeoutMs),
      changes: (ref) => ship.summary(ref),
    },
    d.db,
  );
  // OpenSSH's `ssh` carries remote previews' tunnels when this machine has it (ssh2's channel when not).
  const sshBinary = openSshBinary();
  const previewLog = log.child({ feature: 'previews' });
  const previews = createPreviews({
    sessions,
    runtime: workspaces.runtime,
    docker: (engine) => d.engines.registry.docker(engine),
    tunnel: (engine) => {
      const ssh = d.engines.registry.sshOf(engine);
      return ssh
        ? (host, port) => ssh.tunnel(host, port, sshBinary ? { binary: sshBinary, log: previewLog } : null)
        : null;
    },
    config: config.sessions,
    hostUrl: () => d.ports.host.url(),
    // A port in the session's reserved block (PORT, NEXUS_PORTS) is its preview even when no cwd says so.
    portsOf: (id) => {
      const b = setup.ports.of(id);
      return b ? { from: b.first, to: b.last } : null;
    },
    // The recipe's forwardPorts (devcontainer.json) are previews of every session of the workspace.
    forwardedPorts: (id) => workspaces.recipes.get(id)?.recipe.forwardPorts ?? [],
    events,
    log: previewLog,
    dataDir: d.dataDir,
  });
  const tracker = createTracker({
    db: d.toolsDb,
    platform,
    workspace: (ref) => workspaces.runtime.info(ref),
    sessions,
    secrets: { list: () => vault.secrets.list(), resolve: (id) => vault.resolveSecret(id) },
    onPushed: (l) => ship.onPushed(l),
    events,
    names: d.names,
    config: config.tracker,
    log,
  });
  let talking = toDisposable(() => undefined);
  let previewing = toDisposable(() => undefined);
  const modules: CoreModule[] = [
    tracker,
    {
      name: 'sessions',
      handlers: sessionHandlers(sessions),
      react: () => [
        ...created.react(),
        autoStartFor({ db: d.toolsDb, platform, events, sessions, log }),
        ...setup.react(),
        ship.followStops(),
      ],
      start: () => {
        // ACP sessions' bridges that outlived a previous core say hello, then send what this core has not processed.
        created.acp.wake();
        void sessions.converge().catch((e: unknown) => log.warn('session converge at start-up failed', { error: e }));
      },
      dispose: () => created.dispose(),
    },
    { name: 'ACP sessions', handlers: acpHandlers(created.acp, (ref) => sessions.ref(ref)) },
    { name: 'permissions', handlers: permissionHandlers(created.permissions) },
    { name: 'approval rules', handlers: ruleHandlers(created.rules, created.permissions) },
    { name: 'session setup', handlers: setup.handlers },
    { name: 'ship', handlers: shipHandlers(ship) },
    {
      name: 'review',
      handlers: talk.handlers,
      start: () => void (talking = talk.start()),
      dispose: () => talking.dispose(),
    },
    {
      name: 'previews',
      handlers: previews.handlers,
      start: () => void (previewing = previews.start()),
      dispose: async () => {
        await previewing.dispose();
        await previews.dispose();
      },
    },
  ];
  return { sessions, created, ship, previews, radar: talk.radar, modules };
}
