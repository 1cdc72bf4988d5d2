import type Docker from 'dockerode';
import type { Logger } from '../log';
import type { DelegationService } from '../mcp';
import type { PlatformService } from '../platform';
import { dockerUnavailable, LOCAL_ENGINE, workerBridge } from '../docker';
import type { WorkspaceRuntime } from '../workspaces';
import { errorMessage, NexusError } from '../../../shared/errors';
import { EGRESS_RELAY_PORT, EngineLeaves, gatewayRelayBase, workersGatewayOf, type Inspected } from './engine-leaf';
import type { EngineRegistry } from './engine-registry';
import { onPath, openSshBinary } from './programs';

/**
 * Joins remote engines to the platform: workers of a workspace on a remote engine are handed that
 * engine's leaf node (NATS: hooks, permission asks, inbox, platform tools) and its relay of the
 * delegated MCP listener, both reached through the engine's SSH connection (engine-leaf.ts), and the model gateway's
 * relay there (`gatewayBase`). Workspaces on the local engine are not touched.
 */
export function joinPlatform(w: {
  registry: EngineRegistry;
  platform: Pick<PlatformService, 'routeWorkers' | 'leafCredentials' | 'natsTrust' | 'onTrustChanged'>;
  delegation: Pick<DelegationService, 'routeWorkers' | 'listenerAddress' | 'relayHosts'>;
  runtime: Pick<WorkspaceRuntime, 'find' | 'list'>;
  /** core's model gateway on this machine (null: it does not listen): each leaf relays it to its engine's workers. */
  gatewayTarget: () => { host: string; port: number } | null;
  /** core's egress proxy (null: it does not listen): each leaf relays it to its engine's confined workspaces. */
  egressTarget: () => { host: string; port: number } | null;
  /** The workers' network (docker.network), on every engine. */
  network: string;
  natsBinary: string;
  /** What carries the leaf link back to core: OpenSSH's `ssh -R` (when `ssh` is on PATH), or ssh2 in-process. */
  leafForwarder?: 'openssh' | 'ssh2';
  owner: string;
  log: Logger;
  /** How often a running leaf is looked at (default LEAF_CHECK_MS). */
  leafCheckMs?: number;
}): {
  leaves: EngineLeaves;
  /** Where a workspace's workers reach the model gateway: its engine's relay (null: this machine's address). */
  gatewayBase(workspaceId: string): Promise<string | null>;
  /** How confined workspaces on these engines reach the egress proxy (egress/ RemoteEgressRoute). */
  egress: {
    refusal(engine: string): string | null;
    docker(engine: string): Docker;
    relay(engine: string): Promise<{ host: string; port: number }>;
    up(engine: string, containerId: string): Promise<void>;
  };
  restore(): Promise<void>;
  dispose(): void;
} {
  const leaves = new EngineLeaves({
    docker: (engine) => w.registry.docker(engine),
    ssh: (engine) => w.registry.sshOf(engine),
    leafCredentials: (engine) => w.platform.leafCredentials(engine),
    delegationTarget: () => Promise.resolve(w.delegation.listenerAddress()),
    gatewayTarget: () => w.gatewayTarget(),
    egressTarget: () => w.egressTarget(),
    network: w.network,
    trust: () => w.platform.natsTrust,
    natsServerBinary: onPath(w.natsBinary),
    // No OpenSSH client on this machine: ssh2's forward on the engine's connection.
    sshBinary: (w.leafForwarder ?? 'openssh') === 'openssh' ? openSshBinary() : null,
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
  w.delegation.routeWorkers(async (id) => {
    const base = (await leafOf(id))?.delegationBase ?? null;
    if (base) w.delegation.relayHosts.add(new URL(base).host);
    return base;
  });
  // Between session starts too: a leaf removed or dead under running sessions (`docker rm -f`, the soak's
  // leaf-remove) is made again within a check, not at the next session started there.
  let checking = false;
  const failing = new Set<string>();
  const check = (): void => {
    if (checking) return;
    checking = true;
    void ensureLeaves(leaves, w.runtime, w.log, failing).finally(() => (checking = false));
  };
  let timer: NodeJS.Timeout | null = null;
  // The relay's address is known before the leaf runs (it is made before the launch, in the session's queue): the
  // container's bridge gateway, one inspect per container.
  const relays = new Map<string, Promise<string>>();
  const gatewayBase = async (workspaceId: string): Promise<string | null> => {
    const info = w.runtime.find(workspaceId);
    if (!info?.engine || info.engine === LOCAL_ENGINE || !info.containerId) return null;
    const { engine, containerId } = info;
    if (!w.registry.sshOf(engine))
      throw new NexusError(
        'unavailable',
        "Sessions on a TLS engine cannot reach Nexus's model gateway: it has no way back to core without opening a " +
          'port (an SSH engine has one).',
      );
    let base = relays.get(containerId);
    if (!base) {
      base = w.registry
        .docker(engine)
        .getContainer(containerId)
        .inspect()
        .then(
          (i) => workersGatewayOf(w.registry.docker(engine), i as Inspected, w.network, engine).then(gatewayRelayBase),
          (e: unknown) => Promise.reject(dockerUnavailable(`engine ${engine}: ${errorMessage(e)}`)),
        );
      relays.set(containerId, base);
      base.catch(() => relays.delete(containerId));
    }
    return base;
  };
  const egress = {
    refusal: (engine: string): string | null =>
      w.registry.sshOf(engine)
        ? null
        : 'a TLS engine has no way back to Nexus\u2019s egress proxy without opening a port (an SSH engine has one)',
    docker: (engine: string) => w.registry.docker(engine),
    relay: async (engine: string) => ({
      host: (await workerBridge(w.registry.docker(engine), w.network)).gateway,
      port: EGRESS_RELAY_PORT,
    }),
    up: async (engine: string, containerId: string): Promise<void> => {
      const leaf = await leaves.forContainer(engine, containerId);
      if (!leaf.egressBase) throw new NexusError('unavailable', 'The egress proxy is not listening: no relay for it.');
    },
  };
  return {
    leaves,
    gatewayBase,
    egress,
    restore: async () => {
      await restoreLeaves(leaves, w.runtime, w.delegation, w.log);
      timer ??= setInterval(check, w.leafCheckMs ?? LEAF_CHECK_MS);
      timer.unref();
    },
    dispose: () => {
      if (timer) clearInterval(timer);
      timer = null;
    },
  };
}

/** How often each remote engine's leaf is looked at while its workspaces run (one `inspect` over SSH). */
const LEAF_CHECK_MS = 10_000;

/**
 * After a core start: the leaf of each remote engine with a running workspace is made again. Its sessions
 * ran on, but the leaf the last core made dials back through that core's SSH connection, which died
 * with it: their hooks, permission asks and platform calls would wait there until the next session on
 * the engine replaced it. Once the worker listener is up (at most 30 s), so the new leaf relays it too;
 * a failure is logged (the next session there tries again).
 */
async function restoreLeaves(
  leaves: EngineLeaves,
  runtime: Pick<WorkspaceRuntime, 'list'>,
  delegation: Pick<DelegationService, 'listenerAddress'>,
  log: Logger,
): Promise<void> {
  if (remoteEngines(runtime).size === 0) return;
  for (let t = 0; t < 30 && !delegation.listenerAddress(); t++) await new Promise((r) => setTimeout(r, 1000));
  await ensureLeaves(leaves, runtime, log);
}

/** Each remote engine with a running workspace: one of those workspaces' containers. */
function remoteEngines(runtime: Pick<WorkspaceRuntime, 'list'>): Map<string, string> {
  const byEngine = new Map<string, string>();
  for (const ws of runtime.list())
    if (ws.running && ws.containerId && ws.engine && ws.engine !== LOCAL_ENGINE)
      byEngine.set(ws.engine, ws.containerId);
  return byEngine;
}

/**
 * The leaf of each remote engine with a running workspace, made (again) where it does not run. A failure is
 * logged once until that engine's leaf runs again (an engine down for an hour is one warning, not 360).
 */
async function ensureLeaves(
  leaves: EngineLeaves,
  runtime: Pick<WorkspaceRuntime, 'list'>,
  log: Logger,
  failing = new Set<string>(),
): Promise<void> {
  await Promise.all(
    [...remoteEngines(runtime)].map(([engine, containerId]) =>
      leaves.forContainer(engine, containerId).then(
        () => failing.delete(engine) && log.info('the leaf node runs again', { engine }),
        (e: unknown) => {
          if (!failing.has(engine)) log.warn('the leaf node could not be made again', { engine, error: e });
          failing.add(engine);
        },
      ),
    ),
  );
}
