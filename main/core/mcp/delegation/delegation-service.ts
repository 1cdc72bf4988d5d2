import type { Caller } from '../../handlers';
import type { Logger } from '../../log';
import type { HostAddress } from '../../ports';
import { MCP_PATH } from '../mcp-path';
import { Delegations, type DelegationsDeps, type DelegatedScope } from './delegations';
import { DelegationRateLimit } from './rate-limit';
import type { DelegatedResolvers } from './scope';

/** The header a session's entry names itself with (for the audit; checked against the workspace). */
export const DELEGATED_SESSION_HEADER = 'x-nexus-session';

/** A tool call made with a delegated credential: its scope, its calling session when known, its rate limit. */
export interface DelegatedCall extends DelegatedScope {
  sessionId: string | null;
  resolvers: DelegatedResolvers;
  take(): { ok: true } | { ok: false; retryAfterSeconds: number };
}

export interface DelegationDeps extends DelegationsDeps {
  /** How workers reach the host: over a bridge (the worker listener), on loopback (`host`), or not at all (`none`). */
  reach: 'bridge' | 'loopback' | 'none';
  /** The loopback host (for `host` networking, where the ordinary endpoint serves workers). */
  host: HostAddress;
  resolvers: DelegatedResolvers;
  sessionInWorkspace(sessionId: string, workspaceId: string): boolean;
  rateLimit: { perMinute: number; burst: number };
  /** The workers' bridge: its gateway (where the worker listener binds) and subnet (who may connect). */
  bridge(): Promise<{ gateway: string; subnet: string }>;
  log: Logger;
}

/**
 * Sessions as MCP clients of Nexus: each workspace's credential, where its sessions reach the
 * server (the worker listener's URL, which the host fills in once it listens), the per-workspace
 * rate limit, and the entry written into each session's --mcp-config.
 */
export class DelegationService {
  readonly credentials: Delegations;
  private readonly limit: DelegationRateLimit;
  private workerUrl: string | null = null;
  /** Where a workspace's workers reach the listener when not on this host (a remote engine's relay). */
  private remoteBaseOf: ((workspaceId: string) => Promise<string | null>) | null = null;

  constructor(private readonly deps: DelegationDeps) {
    this.credentials = new Delegations(deps);
    this.limit = new DelegationRateLimit(deps.rateLimit);
  }

  /** The worker listener says where it listens (`http://<gateway>:<port>`), or that it stopped. */
  listening(url: string | null): void {
    this.workerUrl = url;
  }

  /** Whether sessions reach Nexus over the workers' bridge (and so through the worker listener). */
  get overBridge(): boolean {
    return this.deps.reach === 'bridge';
  }

  /** The workers' bridge, asked of the engine (throws a typed error while Docker does not answer). */
  bridge(): Promise<{ gateway: string; subnet: string }> {
    return this.deps.bridge();
  }

  /** The MCP URL sessions use, or null while nothing serves them. */
  endpoint(): string | null {
    const base =
      this.deps.reach === 'bridge' ? this.workerUrl : this.deps.reach === 'loopback' ? this.deps.host.url() : null;
    return base ? `${base.replace(/\/$/, '')}${MCP_PATH}` : null;
  }

  /**
   * The Host names (`<gateway>:<port>`) remote engines' relays present: what remote workers put in
   * their requests' Host, which the worker listener accepts beside its own (main/host/delegation-listener.ts).
   */
  readonly relayHosts = new Set<string>();

  /** Routes workers of remote engines to their engine's relay of the listener (engines/engine-leaf.ts). */
  routeWorkers(baseOf: (workspaceId: string) => Promise<string | null>): void {
    this.remoteBaseOf = baseOf;
  }

  /** The listener as this machine reaches it (what a remote engine's forward carries to), or null. */
  listenerAddress(): { host: string; port: number } | null {
    const base =
      this.deps.reach === 'bridge' ? this.workerUrl : this.deps.reach === 'loopback' ? this.deps.host.url() : null;
    if (!base) return null;
    const u = new URL(base);
    return { host: u.hostname, port: Number(u.port) };
  }

  /** The delegation context of a token caller, when its token is a workspace's credential. */
  callFor(caller: Caller, sessionHeader: string | string[] | undefined): DelegatedCall | null {
    if (caller.kind !== 'token') return null;
    const scope = this.credentials.scopeOf(caller.tokenId);
    if (!scope) return null;
    const claimed =
      typeof sessionHeader === 'string' && /^[A-Za-z0-9_-]{1,100}$/.test(sessionHeader) ? sessionHeader : null;
    const sessionId = claimed && this.deps.sessionInWorkspace(claimed, scope.workspaceId) ? claimed : null;
    return { ...scope, sessionId, resolvers: this.deps.resolvers, take: () => this.limit.take(scope.workspaceId) };
  }

  /** The `nexus-delegated` entry for a session's --mcp-config, or null (no credential, nothing listening, no secret). */
  async mcpEntry(
    workspaceId: string,
    sessionId: string,
  ): Promise<{ type: 'http'; url: string; headers: Record<string, string> } | null> {
    if (!this.credentials.get(workspaceId)) return null;
    let remote: string | null | undefined;
    try {
      remote = await this.remoteBaseOf?.(workspaceId);
    } catch (e) {
      this.deps.log.warn('session starts without the delegated server: its engine cannot relay it', {
        workspaceId,
        error: e,
      });
      return null;
    }
    const url = remote ? `${remote}${MCP_PATH}` : this.endpoint();
    if (!url) {
      this.deps.log.warn('session starts without the delegated server: nothing serves workers yet', { workspaceId });
      return null;
    }
    let secret: string | null;
    try {
      secret = await this.credentials.secretOf(workspaceId);
    } catch (e) {
      this.deps.log.warn('session starts without the delegated server: its secret could not be read', {
        workspaceId,
        error: e,
      });
      return null;
    }
    if (!secret) return null;
    return { type: 'http', url, headers: { Authorization: `Bearer ${secret}`, [DELEGATED_SESSION_HEADER]: sessionId } };
  }

  /** A workspace is gone: its token is revoked, its secret forgotten. */
  async removed(workspaceId: string): Promise<void> {
    this.limit.forget(workspaceId);
    await this.credentials.remove(workspaceId);
  }
}
