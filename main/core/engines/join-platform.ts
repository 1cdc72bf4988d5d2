import { accessSync, constants } from 'node:fs';
import { delimiter, isAbsolute, join } from 'node:path';
import type { Logger } from '../log';
import type { FleetService } from '../mcp/fleet/fleet';
import type { PlatformService } from '../platform/platform-service';
import { LOCAL_ENGINE } from '../workspaces/engine-port';
import type { WorkspaceRuntime } from '../workspaces/runtime';
import { EngineLeaves } from './engine-leaf';
import type { EngineRegistry } from './engine-registry';

/** A program name as the shell would find it on PATH (an absolute path is kept). */
export function onPath(binary: string): string {
  if (isAbsolute(binary)) return binary;
  for (const dir of (process.env.PATH ?? '').split(delimiter).filter(Boolean)) {
    const p = join(dir, binary);
    try {
      accessSync(p, constants.X_OK);
      return p;
    } catch {
      // not here
    }
  }
  return binary;
}

/**
 * Joins remote engines to the platform: workers of a workspace on a remote engine are handed that
 * engine's leaf node (NATS: hooks, permission asks, inbox, platform tools) and its relay of the
 * fleet MCP listener, both reached through the engine's SSH connection (engine-leaf.ts). Workspaces
 * on the local engine are not touched.
 */
export function joinPlatform(w: {
  registry: EngineRegistry;
  platform: Pick<PlatformService, 'routeWorkers' | 'leafCredentials' | 'natsTrust' | 'onTrustChanged'>;
  fleet: Pick<FleetService, 'routeWorkers' | 'listenerAddress' | 'relayHosts'>;
  runtime: Pick<WorkspaceRuntime, 'find'>;
  natsBinary: string;
  owner: string;
  log: Logger;
}): EngineLeaves {
  const leaves = new EngineLeaves({
    docker: (engine) => w.registry.docker(engine),
    ssh: (engine) => w.registry.sshOf(engine),
    leafCredentials: (engine) => w.platform.leafCredentials(engine),
    fleetTarget: () => Promise.resolve(w.fleet.listenerAddress()),
    trust: () => w.platform.natsTrust,
    natsServerBinary: onPath(w.natsBinary),
    owner: w.owner,
    log: w.log.child({ component: 'leaf' }),
  });
  const leafOf = async (workspaceId: string) => {
    // Not in the store (a hook user made for a workspace core does not know): core's server, as before.
    const info = w.runtime.find(workspaceId);
    if (!info?.engine || info.engine === LOCAL_ENGINE || !info.containerId) return null;
    return leaves.forContainer(info.engine, info.containerId);
  };
  w.registry.onRemoving((engine) => leaves.removed(engine));
  // A run ended (or any user revoked) on core's server: each leaf drops it too, not at its JWT's expiry.
  w.platform.onTrustChanged(() => leaves.trustChanged());
  w.platform.routeWorkers(async (id) => (await leafOf(id))?.natsUrl ?? null);
  w.fleet.routeWorkers(async (id) => {
    const base = (await leafOf(id))?.fleetBase ?? null;
    if (base) w.fleet.relayHosts.add(new URL(base).host);
    return base;
  });
  return leaves;
}
