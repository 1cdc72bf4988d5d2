import {
  buildAgents,
  buildDrivers,
  buildDelegation,
  buildFoundations,
  buildGateway,
  buildOperator,
  buildPlatform,
  buildSessions,
  buildVault,
  buildWorkspaces,
  dockerProbe,
  workerHost,
} from './compose';
import { CoreConfig, type CoreConfigInput } from './config';
import type { Core } from './core-api';
import { CoreModules } from './core-module';
import { Dispatcher } from './dispatch';
import { createDockerClient } from './docker';
import { createMcpGate } from './mcp';
import type { CorePorts } from './ports';
import type { SessionService } from './sessions';
import { vaultSecretSource, type WorkspaceOptions } from './workspaces';

/** Collaborators a caller may replace (tests: the workspaces' secret source). */
export interface CoreOptions {
  workspaces?: WorkspaceOptions;
}

/**
 * The one composition root: core is a list of modules (core-module.ts), each built by its room's builder
 * (compose/) from what it names, in the order they start. Building one subscribes to nothing and starts nothing;
 * `start()` makes every module's subscriptions, then starts each in order (the engine probe, the vault, the
 * workspaces' Docker watch, the workers' host address with the platform's NATS server, the gateway and the egress
 * proxy on it, the delegations' credential sweep, the tracker, the sessions' converge, review and previews, the remote
 * engines' leaves). A failed start closes everything built; `dispose` closes the list in reverse.
 */
export async function createCore(
  configInput: CoreConfigInput,
  ports: CorePorts,
  options: CoreOptions = {},
): Promise<Core> {
  const composed = composeCore(configInput, ports, options);
  await composed.start();
  return composed.core;
}

/** Core built and not started: nothing subscribed, nothing listening (createCore starts it; a test may look first). */
export function composeCore(
  configInput: CoreConfigInput,
  ports: CorePorts,
  options: CoreOptions = {},
): { core: Core; start(): Promise<void> } {
  const config = CoreConfig.parse(configInput);
  const dataDir = ports.paths.dataDir;
  const base = buildFoundations(config, dataDir);
  const { redactor, log, events, status, db, audit } = base;
  const common = { db, redactor, log, events, status, audit };
  const docker = createDockerClient(config.docker.socketPath);

  const drivers = buildDrivers(config, dataDir);
  const { vault, coreSecrets, module: vaultModule } = buildVault({ ...common, config, ports, dataDir, drivers });
  const agents = buildAgents({ config, drivers, db, events, vault, docker });
  // Provider tokens for clones and pushes: the vault's (a test may give the workspaces another source).
  const secrets = vaultSecretSource(vault);
  const { engines, egress, workspaces, ...w } = buildWorkspaces({
    ...common,
    config,
    dataDir,
    docker,
    vault,
    agent: agents.inWorkspaces,
    secrets,
    workerContextDir: ports.paths.workerContextDir,
    options: options.workspaces,
  });
  const p = buildPlatform({ ...common, config, dataDir, vault, runtime: workspaces.runtime });
  const f = buildDelegation({
    db,
    log,
    config,
    dataDir,
    ports,
    docker,
    tokens: p.tokens,
    coreSecrets,
    workspaces,
    engines,
    platform: p.platform,
    gatewayTarget: () => gateway.listenerAddress(),
    egressTarget: () => egress.listenerAddress(),
  });
  // Confined workspaces on a remote engine reach the egress proxy through their engine's link, relayed by its leaf.
  egress.routeRemote(f.leaves.egress);
  let sessions: SessionService | null = null;
  const live = (): SessionService => sessions ?? failNotBuilt('sessions');
  const { agent, inWorkspaces } = agents;
  const g = buildGateway({
    ...common,
    config,
    dataDir,
    drivers,
    agent,
    inWorkspaces,
    workspaces,
    sessions: live,
    platform: p,
  });
  const gateway = g.gateway;
  // Workers on a remote engine reach the gateway through their engine's link, relayed by its leaf (as NATS is).
  gateway.routeWorkers((workspaceId) => f.leaves.gatewayBase(workspaceId));
  const s = buildSessions({
    ...common,
    config,
    dataDir,
    ports,
    vault,
    secrets,
    drivers,
    workspaces,
    engines,
    platform: p.platform,
    toolsDb: p.toolsDb,
    names: p.names,
    delegation: f.delegation,
    gateway,
  });
  sessions = s.sessions;
  const o = buildOperator({
    ...common,
    config,
    dataDir,
    ports,
    drivers,
    vault,
    coreSecrets,
    tokens: p.tokens,
    workspaces,
    sessions: s.sessions,
    review: p.review,
    radar: s.radar,
  });

  const host = workerHost({ ...common, config, docker, platform: p.platform, gateway, egress });
  const modules = new CoreModules(
    [
      base.module,
      dockerProbe({ docker, status }),
      vaultModule,
      agents.module,
      ...w.modules,
      ...p.modules,
      host,
      g.module,
      ...f.modules,
      ...s.modules,
      ...o.modules,
      f.leavesModule,
    ],
    log,
  );
  const dispatcher = new Dispatcher(modules.handlers, { redactor, log, audit });
  const start = async (): Promise<void> => {
    await modules.start();
    log.info('core started', { version: config.version, dataDir });
  };
  return {
    start,
    core: exposed({ config, ports, base, dispatcher, modules, vault, agents, engines, workspaces, p, f, s, o }),
  };
}

/** Core as the shells and tests see it (core-api.ts): each service by its name. */
function exposed(c: {
  config: CoreConfig;
  ports: CorePorts;
  base: ReturnType<typeof buildFoundations>;
  dispatcher: Dispatcher;
  modules: CoreModules;
  vault: Core['vault'];
  agents: ReturnType<typeof buildAgents>;
  engines: { service: Core['engines'] };
  workspaces: { service: Core['workspaces'] };
  p: ReturnType<typeof buildPlatform>;
  f: ReturnType<typeof buildDelegation>;
  s: ReturnType<typeof buildSessions>;
  o: ReturnType<typeof buildOperator>;
}): Core {
  const { base, dispatcher, config, p, f, s, o } = c;
  const { log, audit } = base;
  return {
    config,
    ports: c.ports,
    log,
    redactor: base.redactor,
    events: base.events,
    status: base.status,
    audit,
    dispatcher,
    drivers: c.agents.drivers,
    agent: c.agents.agent,
    vault: c.vault,
    workspaces: c.workspaces.service,
    engines: c.engines.service,
    sessions: s.sessions,
    terminals: s.created.terminals,
    permissions: s.created.permissions,
    rules: s.created.rules,
    previews: s.previews.front,
    platform: p.platform,
    review: p.review,
    tokens: p.tokens,
    delegation: f.delegation,
    attention: o.attention,
    connect: o.connect,
    remote: o.remote,
    phone: o.phone,
    mcpGate: (opts) =>
      createMcpGate({ dispatcher, audit, config, tokens: p.tokens, log, delegation: f.delegation }, opts),
    dispose: async () => {
      log.info('core stopping');
      await c.modules.dispose();
    },
  };
}

function failNotBuilt(what: string): never {
  throw new Error(`core: ${what} was asked for before it was built`);
}

export type { Core, CoreApi } from './core-api';
export type { CorePorts } from './ports';
