import { readFileSync, writeFileSync } from 'node:fs';
import type Docker from 'dockerode';
import { NexusError } from '../../../shared/errors';
import { confinedNetworkOf, dockerFailure, ensureConfinedNetwork, isLoopbackNetwork, LOCAL_ENGINE } from '../docker';
import type { Disposable } from '../disposable';
import type { Logger } from '../log';
import { formatAllowEntry, parseAllowList, type AllowEntry } from './allow-list';
import { EgressProxy, type EgressCaller, type EgressWho } from './egress-proxy';
import type { EgressRefusal, EgressStore } from './egress-store';

/** A workspace as the egress rule needs it. */
export interface EgressWorkspace {
  id: string;
  name: string;
  repoUrl: string;
  engine: string;
}

export interface WorkspaceEgressDeps {
  store: EgressStore;
  docker: Docker;
  /** The workers' network (docker.network); confined workspaces use `<it>-confined`. */
  network: string;
  /**
   * `egress.registries`: what a confined workspace may reach before the operator edits its list, beside its git host
   * and its recipe's `egress` (shipped: npm's registry; the worker image has no pip and no root for apt).
   */
  registries: readonly string[];
  log: Logger;
  /** Where the proxy's port is kept, so containers made before a restart keep a working HTTP_PROXY. */
  portFile: string;
  workspace(ref: string): EgressWorkspace;
  /** The workspace a container on the confined network is, by container id. */
  workspaceOfContainer(containerId: string): EgressWorkspace | null;
  /** The recipe's `customizations.nexus.egress` (devcontainer.json), when it has one. */
  recipeHosts(workspaceId: string): readonly string[];
  /** A refusal was recorded (to tell the workspace's page). */
  onRefused?(workspaceId: string): void;
}

/**
 * How confined workspaces on a remote engine reach the proxy: through the engine's SSH link, relayed by its leaf on
 * the workers' bridge gateway there (engines/engine-leaf.ts), as the model gateway and NATS are.
 */
export interface RemoteEgressRoute {
  /** Why the engine cannot carry the proxy (a TLS engine has no way back to core), or null. */
  refusal(engine: string): string | null;
  /** The engine's Docker, where its confined network is made. */
  docker(engine: string): Docker;
  /** Where the engine's workers reach the proxy's relay (their bridge gateway), known before the leaf runs. */
  relay(engine: string): Promise<{ host: string; port: number }>;
  /** Resolves once the relay runs: the engine's leaf, made (or made again) for this container when need be. */
  up(engine: string, containerId: string): Promise<void>;
}

/** The git host of a clone URL as an entry (`host` or `host:port`); null for a local path or SSH. */
export function gitHostEntry(repoUrl: string): string | null {
  try {
    const u = new URL(repoUrl);
    if (u.protocol !== 'https:' && u.protocol !== 'http:') return null;
    const port = u.port || (u.protocol === 'https:' ? '' : '80');
    return port && port !== '443' && !(port === '80' && u.protocol === 'http:') ? `${u.hostname}:${port}` : u.hostname;
  } catch {
    return null;
  }
}

/**
 * A confined container's environment: the proxy for every tool that reads the variables, with the workspace's proxy
 * credential in its URL on a remote engine (null: a local one, known by its address). The gateway and NATS listen on
 * the proxy's host: straight there, never through the proxy.
 */
function proxyEnv(at: { host: string; port: number }, credential: string | null): string[] {
  const proxy = `http://${credential ? `nexus:${credential}@` : ''}${at.host}:${at.port}`;
  const noProxy = `${at.host},localhost,127.0.0.1`;
  return [
    `HTTP_PROXY=${proxy}`,
    `HTTPS_PROXY=${proxy}`,
    `http_proxy=${proxy}`,
    `https_proxy=${proxy}`,
    `NO_PROXY=${noProxy}`,
    `no_proxy=${noProxy}`,
    // Node 24's own http and fetch take the variables above only when asked (Node ignores them otherwise).
    'NODE_USE_ENV_PROXY=1',
    // git's http.proxy from the environment, so no config file is needed (git 2.31+).
    'GIT_CONFIG_COUNT=1',
    'GIT_CONFIG_KEY_0=http.proxy',
    `GIT_CONFIG_VALUE_0=${proxy}`,
  ];
}

/** How long the proxy trusts its map of confined containers' addresses before asking the engine again. */
const ADDRESSES_TTL_MS = 5_000;

/**
 * The egress rule of workspaces: which are confined (the internal network; docs/security.md), their allow-lists
 * (the operator's, or the defaults), the proxy they go out through, and what it refused.
 */
export class WorkspaceEgress implements Disposable {
  readonly confinedNetwork: string;
  private readonly proxy: EgressProxy;
  private address: { host: string; port: number } | null = null;
  private addresses: { at: number; byIp: Map<string, string> } = { at: 0, byIp: new Map() };
  private remote: RemoteEgressRoute | null = null;

  constructor(private readonly deps: WorkspaceEgressDeps) {
    this.confinedNetwork = confinedNetworkOf(deps.network);
    this.proxy = new EgressProxy({
      log: deps.log,
      callerOf: (who) => this.callerOf(who),
      refused: (workspaceId, r) => {
        deps.store.refuse(workspaceId, { at: new Date().toISOString(), ...r });
        deps.onRefused?.(workspaceId);
      },
    });
  }

  /** Listens on the workers' host address (where the gateway and NATS are), on the port it had before if free. */
  async listen(host: string): Promise<void> {
    if (this.address) return;
    const wanted = this.keptPort();
    try {
      this.address = await this.proxy.listen(host, wanted);
    } catch {
      this.deps.log.warn('egress proxy: its port is taken, listening on another', { port: wanted });
      this.address = await this.proxy.listen(host, 0);
    }
    writeFileSync(this.deps.portFile, `${this.address.port}\n`, { mode: 0o600 });
    this.deps.log.info('egress proxy listening', this.address);
  }

  /** Confined workspaces on remote engines go out through this route (set once the engines' leaves are built). */
  routeRemote(route: RemoteEgressRoute): void {
    this.remote = route;
  }

  /** Where the proxy listens on this machine (null: not yet): each remote engine's leaf relays it. */
  listenerAddress(): { host: string; port: number } | null {
    return this.address;
  }

  /** Refuses a confined create that cannot be honoured; before the workspace exists. */
  checkCreate(confined: boolean, engine: string): void {
    if (!confined) return;
    if (isLoopbackNetwork(this.deps.network))
      throw new NexusError(
        'bad_request',
        `Egress by allow-list needs a bridge network: the workers' network is "${this.deps.network}", which shares ` +
          "the host's network and cannot be confined.",
      );
    if (engine === LOCAL_ENGINE) return;
    const refusal = this.remote ? this.remote.refusal(engine) : 'remote engines are not joined to this Nexus';
    if (refusal)
      throw new NexusError('bad_request', `Egress by allow-list cannot confine a workspace there: ${refusal}.`);
  }

  /** Records the create's choice. */
  choose(workspaceId: string, confined: boolean): void {
    if (confined) this.deps.store.set(workspaceId, { confined: true, hosts: null });
  }

  /**
   * The network and environment of a workspace's container: null for an open workspace. On a remote engine the proxy
   * is its leaf's relay, and the workspace presents a fresh proxy credential there (its address does not cross the
   * link); one made before, in a container this replaces, is worthless from now on.
   */
  async containerOf(workspaceId: string): Promise<{ network: string; env: string[] } | null> {
    if (!this.deps.store.get(workspaceId)?.confined) return null;
    if (!this.address)
      throw new NexusError('unavailable', 'The egress proxy is not listening yet (Docker was not answering at start).');
    const { engine } = this.deps.workspace(workspaceId);
    const remote = engine === LOCAL_ENGINE ? null : this.remote;
    if (engine !== LOCAL_ENGINE && !remote)
      throw new NexusError('unavailable', 'Remote engines are not joined to this Nexus: no way to the egress proxy.');
    try {
      await ensureConfinedNetwork(remote ? remote.docker(engine) : this.deps.docker, this.confinedNetwork);
    } catch (e) {
      throw dockerFailure(e, `create the network ${this.confinedNetwork}`);
    }
    if (!remote) return { network: this.confinedNetwork, env: proxyEnv(this.address, null) };
    const relay = await remote.relay(engine);
    return { network: this.confinedNetwork, env: proxyEnv(relay, this.deps.store.issueCredential(workspaceId)) };
  }

  /** A confined workspace's container started: on a remote engine, its way to the proxy is up before it goes out. */
  async started(workspaceId: string, containerId: string): Promise<void> {
    if (!this.deps.store.get(workspaceId)?.confined) return;
    const { engine } = this.deps.workspace(workspaceId);
    if (engine !== LOCAL_ENGINE) await this.remote?.up(engine, containerId);
  }

  /** The workspace's rule: confined or not, the allow-list in force, and whether it is the defaults. */
  rule(ref: string): { workspaceId: string; confined: boolean; hosts: string[]; defaults: string[]; custom: boolean } {
    const w = this.deps.workspace(ref);
    const stored = this.deps.store.get(w.id);
    const defaults = this.defaultsOf(w);
    return {
      workspaceId: w.id,
      confined: stored?.confined ?? false,
      hosts: stored?.hosts ?? defaults,
      defaults,
      custom: stored?.hosts != null,
    };
  }

  /** Sets a workspace's allow-list (null: back to the defaults). Each entry is checked; a bad one changes nothing. */
  setHosts(ref: string, hosts: readonly string[] | null): void {
    const w = this.deps.workspace(ref);
    let canonical: string[] | null = null;
    if (hosts !== null) {
      const { entries, errors } = parseAllowList(hosts);
      if (errors.length)
        throw new NexusError('bad_request', `The allow-list has entries that are not hosts: ${errors.join('; ')}`);
      canonical = [...new Set(entries.map(formatAllowEntry))];
    }
    const stored = this.deps.store.get(w.id);
    this.deps.store.set(w.id, { confined: stored?.confined ?? false, hosts: canonical });
  }

  refusals(ref: string, limit: number): { workspaceId: string; refusals: EgressRefusal[] } {
    const w = this.deps.workspace(ref);
    return { workspaceId: w.id, refusals: this.deps.store.refusals(w.id, limit) };
  }

  async dispose(): Promise<void> {
    await this.proxy.close();
  }

  private defaultsOf(w: EgressWorkspace): string[] {
    const git = gitHostEntry(w.repoUrl);
    const { entries } = parseAllowList([
      ...(git ? [git] : []),
      ...this.deps.registries,
      ...this.deps.recipeHosts(w.id),
    ]);
    return [...new Set(entries.map(formatAllowEntry))];
  }

  private entriesOf(w: EgressWorkspace): AllowEntry[] {
    return parseAllowList(this.deps.store.get(w.id)?.hosts ?? this.defaultsOf(w)).entries;
  }

  /** A presented proxy credential decides (a remote workspace); without one, the source address (a local one). */
  private async callerOf(who: EgressWho): Promise<EgressCaller> {
    if (who.credential === null) return this.callerAt(who.address);
    const id = this.deps.store.workspaceOfCredential(who.credential);
    if (!id) return null;
    let w: EgressWorkspace;
    try {
      w = this.deps.workspace(id);
    } catch {
      return null;
    }
    return { workspaceId: w.id, name: w.name, entries: this.entriesOf(w) };
  }

  private async callerAt(ip: string): Promise<EgressCaller> {
    const address = ip.replace(/^::ffff:/, '');
    let containerId = this.addresses.byIp.get(address);
    if (!containerId || Date.now() - this.addresses.at > ADDRESSES_TTL_MS) {
      await this.learnAddresses();
      containerId = this.addresses.byIp.get(address);
    }
    const w = containerId ? this.deps.workspaceOfContainer(containerId) : null;
    if (!w || !this.deps.store.get(w.id)?.confined) return null;
    return { workspaceId: w.id, name: w.name, entries: this.entriesOf(w) };
  }

  /** The confined network's containers by address (one engine call however many connections ask at once). */
  private learning: Promise<void> | null = null;
  private learnAddresses(): Promise<void> {
    this.learning ??= (async () => {
      try {
        const info = (await this.deps.docker.getNetwork(this.confinedNetwork).inspect()) as {
          Containers?: Record<string, { IPv4Address?: string }>;
        };
        const byIp = new Map<string, string>();
        for (const [id, c] of Object.entries(info.Containers ?? {}))
          if (c.IPv4Address) byIp.set(c.IPv4Address.split('/')[0] ?? '', id);
        this.addresses = { at: Date.now(), byIp };
      } catch (e) {
        this.deps.log.warn('egress proxy: the confined network could not be read', { error: e });
      } finally {
        this.learning = null;
      }
    })();
    return this.learning;
  }

  private keptPort(): number {
    try {
      const port = Number(readFileSync(this.deps.portFile, 'utf8').trim());
      return Number.isInteger(port) && port > 0 && port < 65536 ? port : 0;
    } catch {
      return 0;
    }
  }
}
