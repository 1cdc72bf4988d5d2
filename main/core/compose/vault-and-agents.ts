import type Docker from 'dockerode';
import { agentHandlers, AgentDrivers, AgentService, workspaceAgent } from '../agents';
import type { CoreConfig } from '../config';
import type { CoreModule } from '../core-module';
import type { CorePorts } from '../ports';
import { CoreSecrets, SealedCoreSecrets, VaultService, vaultHandlers } from '../vault';
import type { Foundations } from './foundations';

type Base = Pick<Foundations, 'db' | 'redactor' | 'log' | 'events' | 'status'>;

/** The agent kinds (agents/registry.ts): each kind's pinned CLI, sign-in, launch, hooks and messages. */
export const buildDrivers = (config: CoreConfig, dataDir: string): AgentDrivers =>
  new AgentDrivers({ dataDir, launch: config.sessions, kinds: config.agent.kinds });

/**
 * The vault (started by core's start), which takes the credential kinds the drivers declare, and core's own
 * secrets: the OS keychain, else the vault or the data dir.
 */
export function buildVault(d: Base & { config: CoreConfig; ports: CorePorts; dataDir: string; drivers: AgentDrivers }) {
  const vault = new VaultService({
    agentCredentialKinds: () => d.drivers.credentials.map((c) => c.kind),
    db: d.db,
    keychain: d.ports.keychain,
    redactor: d.redactor,
    log: d.log.child({ component: 'vault' }),
    events: d.events,
    status: d.status,
    dataDir: d.dataDir,
    keyFile: d.config.vault.keyFile,
  });
  const coreSecrets = new CoreSecrets({
    keychain: d.ports.keychain,
    sealed: new SealedCoreSecrets(d.db, vault),
    redactor: d.redactor,
    log: d.log.child({ component: 'core-secrets' }),
    dataDir: d.dataDir,
  });
  const module: CoreModule = {
    name: 'vault',
    handlers: vaultHandlers(vault),
    start: async () => {
      await vault.start();
    },
    dispose: () => vault.dispose(),
  };
  return { vault, coreSecrets, module };
}

/** Settings → Agent, and what a workspace mounts and signs in with. */
export function buildAgents(d: {
  config: CoreConfig;
  drivers: AgentDrivers;
  db: Foundations['db'];
  events: Foundations['events'];
  vault: VaultService;
  docker: Docker;
}) {
  const { drivers } = d;
  const agent = new AgentService({
    db: d.db,
    drivers,
    configuredMode: d.config.sessions.permissionMode,
    secrets: () => d.vault.secrets.list(),
    events: d.events,
  });
  const inWorkspaces = workspaceAgent({
    drivers,
    agent,
    resolve: (id) => d.vault.resolveSecret(id),
    engineArchitecture: async () => ((await d.docker.info()) as { Architecture: string }).Architecture,
  });
  const module: CoreModule = { name: 'agents', handlers: agentHandlers(agent) };
  return { drivers, agent, inWorkspaces, module };
}
