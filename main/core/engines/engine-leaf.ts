import { readFileSync } from 'node:fs';
import type Docker from 'dockerode';
import { NexusError } from '../../../shared/errors';
import type { Logger } from '../log';
import { leafNodeConfig, type LeafNodeInput, type NatsTrust } from '../platform';
import { confinedNetworkOf, dockerUnavailable, LABEL, packTar, workerBridge } from '../docker';
import { LeafTrust } from './leaf-trust';
import type { SshConnection } from './ssh-connection';

/**
 * Where the leaf (and the delegation, model gateway and egress proxy relays beside it) listens on the engine's bridge
 * gateway.
 */
export const LEAF_WORKER_PORT = 4224;
export const DELEGATION_RELAY_PORT = 4225;
export const GATEWAY_RELAY_PORT = 4226;
export const EGRESS_RELAY_PORT = 4227;
const DIR = '/tmp/nexus-leaf';
const READY_MS = 20_000;

export interface LeafDeps {
  /** The engine's dockerode (over its SSH connection). */
  docker(engine: string): Docker;
  /** The engine's SSH connection (null: a TLS engine, which has no way back to core without opening a port). */
  ssh(engine: string): SshConnection | null;
  /** core.platform.leafCredentials: a creds file for the leaf's one connection, the hub's leaf port, the trust. */
  leafCredentials(engineId: string): Promise<{ creds: string; hubPort: number; trust: NatsTrust }>;
  /** core's worker MCP listener on this machine (null: no delegated server for workers). */
  delegationTarget(): Promise<{ host: string; port: number } | null>;
  /** core's model gateway on this machine (null: it does not listen; no relay). */
  gatewayTarget(): { host: string; port: number } | null;
  /** core's egress proxy on this machine (null: it does not listen; no relay): confined workspaces go out by it. */
  egressTarget(): { host: string; port: number } | null;
  /** The workers' network (docker.network): the leaf listens on its bridge gateway on every engine. */
  network: string;
  /**
   * OpenSSH's `ssh` on this machine: the leaf link's forward runs as its child process (openssh-forward.ts);
   * null: ssh2's forward on the engine's connection, in core's process (measured slower: docs/performance.md).
   */
  sshBinary: string | null;
  /** core.platform.natsTrust: the account JWT as of now, revocations included (null: no NATS). */
  trust(): NatsTrust | null;
  /** The nats-server binary on this machine (copied into the leaf container: the worker image has none). */
  natsServerBinary: string;
  owner: string;
  log: Logger;
}

/** Where one engine's workers reach Nexus: the leaf's NATS URL, the delegation and model gateway relays (null: none). */
export interface EngineLeaf {
  natsUrl: string;
  delegationBase: string | null;
  gatewayBase: string | null;
  /** The egress proxy's relay (null: none). */
  egressBase: string | null;
}

/**
 * One leaf nats-server per remote engine, in a container of that engine (host networking, so it
 * can listen on the workers' bridge gateway and reach the remote host's loopback) started from the
 * workspace's worker image with this machine's nats-server copied in. It dials the hub through a
 * remote forward of the engine's SSH connection (the remote host's 127.0.0.1 only); the delegated MCP
 * listener and core's model gateway reach the engine the same way, each relayed onto the bridge gateway by socat
 * in the same container. No NATS, MCP or gateway port is opened on any network. Workers on that engine are handed the leaf's URL.
 * When the SSH connection comes back the forwards come back on the same ports, and the leaf
 * reconnects by itself (every second).
 */
export class EngineLeaves {
  private readonly leaves = new Map<string, Promise<EngineLeaf>>();
  private readonly trust: LeafTrust;

  constructor(private readonly deps: LeafDeps) {
    this.trust = new LeafTrust({ trust: () => deps.trust(), log: deps.log });
  }

  /**
   * The leaf of the engine holding this container, started on first use (one per engine), and
   * again when its container no longer runs (it did not come back with the remote daemon, or was
   * removed), so a session relaunched there reaches a live leaf; and once when it was made before core's model
   * gateway listened (no relay for it), so sessions there get one.
   */
  forContainer(engine: string, containerId: string): Promise<EngineLeaf> {
    const known = this.leaves.get(engine);
    if (!known) return this.begin(engine, containerId);
    const again = (): Promise<EngineLeaf> =>
      this.leaves.get(engine) === known ? this.begin(engine, containerId) : this.forContainer(engine, containerId);
    return known.then(async (leaf) => {
      if (leaf.gatewayBase === null && this.deps.gatewayTarget()) return again();
      if (leaf.egressBase === null && this.deps.egressTarget()) return again();
      return (await this.running(engine)) === false ? again() : leaf;
    }, again);
  }

  /** Core revoked users (a run ended, …): each started leaf reloads the account JWT and drops them (leaf-trust.ts). */
  trustChanged(): void {
    this.trust.changed();
  }

  /** The engine went away (removed): its leaf container is removed if it can be. */
  async removed(engine: string): Promise<void> {
    this.leaves.delete(engine);
    this.trust.forget(engine);
    await this.containerOf(engine)
      .remove({ force: true })
      .catch(() => undefined);
  }

  private containerOf(engine: string): Docker.Container {
    return this.deps.docker(engine).getContainer(leafContainerName(this.deps.owner, engine));
  }

  private begin(engine: string, containerId: string): Promise<EngineLeaf> {
    this.trust.forget(engine);
    const p = this.start(engine, containerId);
    this.leaves.set(engine, p);
    p.catch(() => this.leaves.get(engine) === p && this.leaves.delete(engine));
    return p;
  }

  /**
   * Whether the engine's leaf container runs (not gone, not stopped, not in a restart loop); null
   * when the engine did not answer (its daemon restarting): the known leaf is kept, since it comes
   * back with the daemon (restart policy), and is looked at again on the next call.
   */
  private async running(engine: string): Promise<boolean | null> {
    try {
      const { State } = (await this.containerOf(engine).inspect()) as {
        State: { Running: boolean; Restarting: boolean };
      };
      return State.Running && !State.Restarting;
    } catch (e) {
      return (e as { statusCode?: number }).statusCode === 404 ? false : null;
    }
  }

  private async start(engine: string, containerId: string): Promise<EngineLeaf> {
    const ssh = this.deps.ssh(engine);
    if (!ssh)
      throw new NexusError(
        'nats_unavailable',
        'Platform tools reach a remote engine over its SSH connection only; this engine is TLS (no way back without opening a port).',
      );
    const docker = this.deps.docker(engine);
    const ws = (await docker.getContainer(containerId).inspect()) as Inspected & { Config: { Image: string } };
    const gateway = await workersGatewayOf(docker, ws, this.deps.network, engine);
    const { creds, hubPort, trust } = await this.deps.leafCredentials(engine);
    const delegated = await this.deps.delegationTarget();
    const model = this.deps.gatewayTarget();
    const egress = this.deps.egressTarget();
    const targets = [
      { host: '127.0.0.1', port: hubPort },
      ...(delegated ? [delegated] : []),
      ...(model ? [model] : []),
      ...(egress ? [egress] : []),
    ];
    const ports: number[] = [];
    if (this.deps.sshBinary) ports.push(...(await ssh.forwardInOpenSsh(targets, this.deps.sshBinary, this.deps.log)));
    else for (const t of targets) ports.push(await ssh.forwardIn(t));
    const [hubForward] = ports;
    const delegationForward = delegated ? ports[1] : undefined;
    const modelForward = model ? ports[1 + (delegated ? 1 : 0)] : undefined;
    const egressForward = egress ? ports[targets.length - 1] : undefined;
    const input: LeafNodeInput = {
      hubUrl: `nats://127.0.0.1:${hubForward}`,
      credentials: `${DIR}/leaf.creds`,
      listen: { host: gateway, port: LEAF_WORKER_PORT },
      trust,
    };
    const config = leafNodeConfig(input);
    const name = leafContainerName(this.deps.owner, engine);
    await docker
      .getContainer(name)
      .remove({ force: true })
      .catch(() => undefined);
    // The model gateway's relay sends each chunk at once (nodelay): a streamed answer is not held for Nagle.
    const relay =
      (delegationForward
        ? `socat TCP-LISTEN:${DELEGATION_RELAY_PORT},bind=${gateway},fork,reuseaddr TCP:127.0.0.1:${delegationForward} & `
        : '') +
      (modelForward
        ? `socat TCP-LISTEN:${GATEWAY_RELAY_PORT},bind=${gateway},fork,reuseaddr,nodelay TCP:127.0.0.1:${modelForward},nodelay & `
        : '') +
      (egressForward
        ? `socat TCP-LISTEN:${EGRESS_RELAY_PORT},bind=${gateway},fork,reuseaddr TCP:127.0.0.1:${egressForward} & `
        : '');
    const container = await docker.createContainer({
      name,
      Image: ws.Config.Image,
      User: '65534:65534',
      Entrypoint: ['sh', '-c', `${relay}exec ${DIR}/nats-server -c ${DIR}/leaf.json`],
      Cmd: [],
      Labels: { [LABEL.managed]: '1', 'nexus.leaf.owner': this.deps.owner, 'nexus.leaf.engine': engine },
      HostConfig: { NetworkMode: 'host', RestartPolicy: { Name: 'unless-stopped' }, ReadonlyRootfs: false },
    });
    const binary = readFileSync(this.deps.natsServerBinary);
    await container.putArchive(
      packTar([
        { path: 'nexus-leaf/nats-server', data: binary, mode: 0o555 },
        { path: 'nexus-leaf/leaf.json', data: Buffer.from(config), mode: 0o444 },
        { path: 'nexus-leaf/leaf.creds', data: Buffer.from(creds), mode: 0o444 },
      ]),
      { path: '/tmp' },
    );
    await container.start();
    await this.ready(container, engine);
    this.deps.log.info('leaf node started', {
      engine,
      gateway,
      hubForward,
      delegationForward,
      modelForward,
      egressForward,
      forwarder: this.deps.sshBinary ? 'openssh' : 'ssh2',
    });
    this.trust.started(engine, container, input);
    return {
      natsUrl: `nats://${gateway}:${LEAF_WORKER_PORT}`,
      delegationBase: delegationForward ? `http://${gateway}:${DELEGATION_RELAY_PORT}` : null,
      gatewayBase: modelForward ? gatewayRelayBase(gateway) : null,
      egressBase: egressForward ? `http://${gateway}:${EGRESS_RELAY_PORT}` : null,
    };
  }

  /** Until the leaf says it is connected to the hub (its log), or it exits. */
  private async ready(container: Docker.Container, engine: string): Promise<void> {
    const until = Date.now() + READY_MS;
    let log = '';
    while (Date.now() < until) {
      const buf = (await container.logs({ stdout: true, stderr: true, follow: false })) as unknown as Buffer;
      log = buf.toString('utf8');
      if (/Leafnode connection created/i.test(log)) return;
      const state = ((await container.inspect()) as { State: { Running: boolean } }).State;
      if (!state.Running) break;
      await new Promise((r) => setTimeout(r, 200));
    }
    const tail = log.split('\n').slice(-5).join(' | ');
    throw dockerUnavailable(`the leaf node on engine ${engine} did not connect to core: ${tail}`);
  }
}

/** What a container's inspect says of its networks. */
export interface Inspected {
  NetworkSettings: { Networks: Record<string, { Gateway?: string }> };
}

/** The workers' bridge gateway of a workspace's container (where the leaf and its relays listen on its engine). */
export function bridgeGatewayOf(ws: Inspected, engine: string): string {
  const gateway = Object.values(ws.NetworkSettings.Networks).find((n) => n.Gateway)?.Gateway;
  if (!gateway) throw dockerUnavailable(`the workspace on engine ${engine} has no bridge gateway`);
  return gateway;
}

/**
 * The workers' bridge gateway on a workspace container's engine: the container's own on the workers' network, or for
 * a confined container (on the internal network only) that network's, which is the engine host's address there too:
 * the leaf's relays listen there for both kinds (docs/security.md, "Egress by allow-list").
 */
export async function workersGatewayOf(
  docker: Docker,
  ws: Inspected,
  network: string,
  engine: string,
): Promise<string> {
  const networks = ws.NetworkSettings.Networks;
  const own = networks[network]?.Gateway;
  if (own) return own;
  if (!networks[confinedNetworkOf(network)]) return bridgeGatewayOf(ws, engine);
  try {
    return (await workerBridge(docker, network)).gateway;
  } catch (e) {
    throw dockerUnavailable(`engine ${engine}: the workers' network ${network}: ${(e as Error).message}`);
  }
}

/** Where workers of an engine reach core's model gateway: the leaf container's relay on their bridge gateway. */
export const gatewayRelayBase = (bridgeGateway: string): string => `http://${bridgeGateway}:${GATEWAY_RELAY_PORT}`;

export const leafContainerName = (owner: string, engine: string): string => `nexus-leaf-${owner}-${engine}`;
