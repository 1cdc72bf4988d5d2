import type Docker from 'dockerode';
import type { CoreConfig } from '../config';
import type { CoreModule } from '../core-module';
import { ownerIdFor, workerBridge } from '../docker';
import { joinPlatform, type Engines } from '../engines';
import { createDelegation, delegationHandlers, delegationStep } from '../mcp';
import type { PlatformService } from '../platform';
import type { CorePorts } from '../ports';
import type { TokenService } from '../tokens';
import type { CoreSecrets } from '../vault';
import { workspaceHandlers, type Workspaces } from '../workspaces';
import type { Foundations } from './foundations';

/**
 * Delegations: sessions as MCP clients, each workspace's delegated credential (its scope reads sessions from the store, so
 * it comes before them), and remote engines' leaf nodes, through which their workers reach NATS, the delegation listener,
 * the model gateway and the egress proxy.
 */
export function buildDelegation(
  d: Pick<Foundations, 'db' | 'log'> & {
    config: CoreConfig;
    dataDir: string;
    ports: CorePorts;
    docker: Docker;
    tokens: TokenService;
    coreSecrets: CoreSecrets;
    workspaces: Workspaces;
    engines: Engines;
    platform: PlatformService;
    /** The model gateway's address; asked only when a leaf starts (the gateway is built after the delegations). */
    gatewayTarget: () => { host: string; port: number } | null;
    /** The egress proxy's address, asked when a leaf starts: confined workspaces on remote engines go out through it. */
    egressTarget: () => { host: string; port: number } | null;
  },
) {
  const { config, workspaces } = d;
  const built = createDelegation({
    db: d.db,
    tokens: d.tokens,
    secrets: d.coreSecrets,
    host: d.ports.host,
    dataDir: d.dataDir,
    config,
    log: d.log,
    workspaces: workspaces.service,
    runtime: workspaces.runtime,
    signals: workspaces.signals,
    bridge: () => workerBridge(d.docker, config.docker.network),
  });
  const leaves = joinPlatform({
    registry: d.engines.registry,
    platform: d.platform,
    delegation: built.delegation,
    runtime: workspaces.runtime,
    gatewayTarget: d.gatewayTarget,
    egressTarget: d.egressTarget,
    network: config.docker.network,
    natsBinary: config.nats.binary,
    leafForwarder: config.nats.leafForwarder,
    owner: ownerIdFor(d.dataDir),
    log: d.log,
  });
  const modules: CoreModule[] = [
    {
      name: 'delegation',
      handlers: delegationHandlers(built.delegation, workspaces.service),
      react: built.react,
      start: built.start,
    },
    // workspaces.create's delegation choice is a step of its handler, so the workspace operations are answered here.
    { name: 'workspace operations', handlers: workspaceHandlers(workspaces.service, delegationStep(built.delegation)) },
  ];
  const leavesModule: CoreModule = {
    name: 'leaves',
    start: () => void leaves.restore(),
    dispose: () => leaves.dispose(),
  };
  return { delegation: built.delegation, leaves, modules, leavesModule };
}
