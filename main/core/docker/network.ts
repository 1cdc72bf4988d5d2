import type Docker from 'dockerode';
import type { StatusBoard } from '../app';
import type { Disposable } from '../disposable';
import type { EventBus } from '../events';
import type { Logger } from '../log';
import { dockerFailure } from './engine';
import { LABEL } from './labels';
import { statusOf } from './worker-image';

/** Networks the engine provides itself: Nexus never creates them. */
const BUILT_IN = new Set(['host', 'none', 'bridge', 'default']);

/** Where a worker on `network` reaches services of the host: loopback on `host` (and `none`), the bridge's gateway otherwise. */
const LOOPBACK_NETWORKS = new Set(['host', 'none']);

/** Makes sure the worker network exists: a user-defined bridge, labelled as Nexus's, created when missing. */
export async function ensureWorkerNetwork(docker: Docker, name: string): Promise<void> {
  if (!BUILT_IN.has(name)) await ensureBridge(docker, name, false);
}

/** The network of confined workspaces beside the workers' network `network` (on every engine). */
export const confinedNetworkOf = (network: string): string => `${network}-confined`;

/**
 * Makes sure a confined workspaces' network exists: a user-defined bridge created `--internal` (no route out that the
 * engine forwards; the host's own addresses stay reachable, which is where the gateway, NATS and the egress proxy
 * listen). An engine run with `--iptables=false` does not enforce it (docs/security.md, "Egress by allow-list").
 */
export async function ensureConfinedNetwork(docker: Docker, name: string): Promise<void> {
  await ensureBridge(docker, name, true);
}

/** Ensures in flight, per engine and network: two creates at once on a new engine would make two of one name. */
const ensuring = new WeakMap<Docker, Map<string, Promise<void>>>();

/** A labelled user-defined bridge `name`, internal or not, created when missing; one that exists must match. */
function ensureBridge(docker: Docker, name: string, internal: boolean): Promise<void> {
  let inFlight = ensuring.get(docker);
  if (!inFlight) ensuring.set(docker, (inFlight = new Map()));
  const key = `${name}\0${internal}`;
  const known = inFlight.get(key);
  if (known) return known;
  const p = makeBridge(docker, name, internal).finally(() => inFlight.delete(key));
  inFlight.set(key, p);
  return p;
}

async function makeBridge(docker: Docker, name: string, internal: boolean): Promise<void> {
  try {
    const info = (await docker.getNetwork(name).inspect()) as { Internal?: boolean };
    if (internal && !info.Internal)
      throw new Error(`the network ${name} exists and is not internal: remove it or rename it`);
    return;
  } catch (e) {
    if (statusOf(e) !== 404) throw dockerFailure(e, `look up the network ${name}`);
  }
  try {
    await docker.createNetwork({
      Name: name,
      Driver: 'bridge',
      ...(internal ? { Internal: true } : {}),
      CheckDuplicate: true,
      Labels: { [LABEL.managed]: '1' },
    });
  } catch (e) {
    // Another create (a second core on the same engine) got there first: the network is there.
    if (statusOf(e) !== 409) throw dockerFailure(e, `create the network ${name}`);
  }
}

/**
 * The address workers on `network` use to reach the host, and so the one address host services
 * for workers (the managed nats-server) listen on: 127.0.0.1 for `host`, the gateway of a bridge
 * network (created when missing). Never a wildcard: nothing is offered beyond the workers' network.
 * Throws a typed error when the engine cannot be asked.
 */
export async function workerHostAddress(docker: Docker, network: string): Promise<string> {
  if (LOOPBACK_NETWORKS.has(network)) return '127.0.0.1';
  return (await workerBridge(docker, network)).gateway;
}

/**
 * The bridge a worker network is: its gateway (the host's address on it) and its IPv4 subnet
 * (where workers' connections come from), creating the network when missing. Not for `host` and
 * `none`, which have no bridge (see isLoopbackNetwork). Throws a typed error when the engine cannot be asked.
 */
export async function workerBridge(docker: Docker, network: string): Promise<{ gateway: string; subnet: string }> {
  await ensureWorkerNetwork(docker, network);
  const name = network === 'default' ? 'bridge' : network;
  let info: { IPAM?: { Config?: { Gateway?: string; Subnet?: string }[] } };
  try {
    info = (await docker.getNetwork(name).inspect()) as typeof info;
  } catch (e) {
    throw dockerFailure(e, `look up the network ${name}`);
  }
  const config = (info.IPAM?.Config ?? []).find(
    (c) =>
      c.Gateway && /^\d+\.\d+\.\d+\.\d+$/.test(c.Gateway) && c.Subnet && /^\d+\.\d+\.\d+\.\d+\/\d+$/.test(c.Subnet),
  );
  if (!config?.Gateway || !config.Subnet)
    throw dockerFailure(new Error(`the network ${name} has no IPv4 gateway`), `find the host address on ${name}`);
  return { gateway: config.Gateway, subnet: config.Subnet };
}

/** Whether workers on `network` reach the host on its loopback (no bridge between them). */
export const isLoopbackNetwork = (network: string): boolean => LOOPBACK_NETWORKS.has(network);

/**
 * The workers' host address, learned at start-up. When the engine does not answer then, `now` is
 * null and `later` is called once with the address as soon as the status board says Docker is back.
 */
export async function learnWorkerHost(deps: {
  docker: Docker;
  network: string;
  events: EventBus;
  status: StatusBoard;
  log: Logger;
  later: (address: string) => Promise<void>;
}): Promise<{ now: string | null } & Disposable> {
  try {
    return { now: await workerHostAddress(deps.docker, deps.network), dispose: () => undefined };
  } catch (e) {
    deps.log.warn('the workers’ host address is not known yet', { network: deps.network, error: e });
  }
  let asking = false;
  const sub = deps.events.subscribe((m) => {
    if (m.name !== 'app.status' || deps.status.get().docker.state !== 'available' || asking) return;
    asking = true;
    workerHostAddress(deps.docker, deps.network)
      .then(async (address) => {
        sub.dispose();
        await deps.later(address);
      })
      .catch((e: unknown) => deps.log.warn('the workers’ host address is still not known', { error: e }))
      .finally(() => (asking = false));
  });
  return { now: null, dispose: () => sub.dispose() };
}
