import { readFileSync, writeFileSync } from 'node:fs';
import type { SecretKind } from '../../../shared/contract';
import { errorMessage, NexusError } from '../../../shared/errors';
import type { AgentDrivers } from '../agents';
import type { EventBus } from '../events';
import type { Logger } from '../log';
import type { Redactor } from '../redact';
import type { Db } from '../store';
import { GatewayCredentialStore, type GatewayCaller } from './gateway-credential-store';
import { GatewayServer } from './gateway-server';
import type { TokenCounts } from './usage-parse';
import { endsTurn, usageLimitReset } from './usage-limit-parse';
import { UsageLimits, type UsageLimitsDeps } from './usage-limit';
import { dayOf, UsageStore, type BudgetScope, type UsageTotals } from './usage-store';

export interface ModelGatewayDeps {
  db: Db;
  drivers: AgentDrivers;
  log: Logger;
  redactor: Pick<Redactor, 'addSecret'>;
  events: EventBus;
  /**
   * The real credential a kind's sessions in a workspace sign in with (the workspace's own of that kind, else the
   * kind's default), resolved from the vault; null when there is none. Throws when the vault is sealed.
   */
  credentialFor(workspaceId: string, kind: string): Promise<{ kind: SecretKind; value: string } | null>;
  /** Whether a kind's sessions in a workspace have a credential (metadata only: works while the vault is sealed). */
  hasCredential(workspaceId: string, kind: string): boolean;
  /** The task a session's run works on (the ledger attributes tokens to it), or null. */
  taskOf(sessionId: string): string | null;
  /** A session's request was refused at a budget: it waits on the operator (Needs you), with why. */
  budgetReached(sessionId: string, message: string): void;
  /** A session refused at a budget has room again (the cap was raised or removed): it goes on. */
  budgetCleared(sessionId: string): void;
  /**
   * Usage limits (usage-limit.ts): where a session's "limited until" is kept, how its resume reads it and sends the
   * resume message (absent: 429s pass on unread).
   */
  limits?: Pick<UsageLimitsDeps, 'mark' | 'view' | 'resume'> | undefined;
  config: { port: number; upstreamCa?: string | undefined };
  /**
   * Where the port it listened on is kept (the data dir), so a restarted core listens where running agents' CLIs
   * already send their requests; absent: not kept.
   */
  portFile?: string | undefined;
}

/**
 * The model gateway (docs/gateway.md): every session's model traffic goes through core. Each session gets its own
 * gateway credential (useless anywhere else, gone with the session); the gateway swaps it for the real credential
 * from the vault, forwards the request upstream and streams the answer back, counting its tokens into the ledger
 * and refusing requests once a budget is reached.
 */
export class ModelGateway {
  readonly credentials: GatewayCredentialStore;
  /** The ledger (a row per answer, written before the answer ends) and the budgets. */
  readonly usage: UsageStore;
  /** Sessions held by their provider's usage limit, and their resume at its reset (null: not kept). */
  readonly limits: UsageLimits | null;
  private readonly server: GatewayServer;
  private address: { host: string; port: number } | null = null;
  /** Sessions refused at a budget since, by id, with their workspace (to see when they have room again). */
  private readonly stopped = new Map<string, string>();
  /** Where workspaces whose workers reach the gateway elsewhere (a remote engine's relay) do. */
  private readonly routes = new Map<string, string>();
  private router: ((workspaceId: string) => Promise<string | null>) | null = null;

  constructor(private readonly deps: ModelGatewayDeps) {
    this.credentials = new GatewayCredentialStore(deps.db);
    this.usage = new UsageStore(deps.db, (why) =>
      deps.log.warn("model gateway: the ledger's thread failed, rows are written on core's own", { why }),
    );
    this.limits = deps.limits
      ? new UsageLimits({ ...deps.limits, events: deps.events, log: deps.log.child({ component: 'usage-limits' }) })
      : null;
    this.server = new GatewayServer(
      {
        verify: (c) => this.credentials.verify(c),
        upstream: (caller) => this.upstream(caller),
        refusal: (caller) => this.refusal(caller),
        counted: (caller, id, counts) => this.counted(caller, id, counts),
        answered: (caller, status, headers, body) => this.answered(caller.sessionId, status, headers, body),
      },
      deps.log.child({ component: 'gateway' }),
      deps.config.upstreamCa,
    );
  }

  /**
   * Listens on the workers' host address (again when it moves), on the port it had before (this run's, else the
   * data dir's, else the configured one); a port another program holds falls back to any free one, said in the log.
   */
  async listen(host: string): Promise<void> {
    const wanted = this.address?.port ?? this.keptPort() ?? this.deps.config.port;
    try {
      this.address = await this.server.listen(host, wanted);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EADDRINUSE' || wanted === 0) throw e;
      this.deps.log.warn('model gateway: its port is taken, listening on another', { port: wanted });
      this.address = await this.server.listen(host, 0);
    }
    if (this.deps.portFile) writeFileSync(this.deps.portFile, `${this.address.port}\n`, { mode: 0o600 });
    this.deps.log.info('model gateway listening', { host: this.address.host, port: this.address.port });
  }

  private keptPort(): number | null {
    if (!this.deps.portFile) return null;
    try {
      const port = Number(readFileSync(this.deps.portFile, 'utf8').trim());
      return Number.isInteger(port) && port > 0 && port < 65536 ? port : null;
    } catch {
      return null;
    }
  }

  async close(): Promise<void> {
    this.address = null;
    await this.server.close();
    await this.usage.close();
    this.limits?.dispose();
  }

  /** Where it listens on this machine (null: it does not): a remote engine's link forwards to it. */
  listenerAddress(): { host: string; port: number } | null {
    return this.address;
  }

  /**
   * Where a kind's sessions (in a workspace, when given) send their model requests: this machine's address, or the
   * workspace's route (`route`); null while the gateway does not listen.
   */
  urlFor(kind: string, workspaceId?: string): string | null {
    if (!this.address) return null;
    const routed = workspaceId === undefined ? undefined : this.routes.get(workspaceId);
    return `${routed ?? `http://${this.address.host}:${this.address.port}`}/${kind}`;
  }

  /**
   * Workers of some workspaces reach the gateway another way (a remote engine's: the relay its link forwards,
   * engines/engine-leaf.ts): `router` gives that base URL, null for this machine's address, or throws when the
   * workspace has no way to the gateway.
   */
  routeWorkers(router: (workspaceId: string) => Promise<string | null>): void {
    this.router = router;
  }

  /**
   * Learns where a workspace's workers reach the gateway, before one of its sessions is launched (`urlFor`); throws
   * when they have no way to it (a TLS engine), so the session is refused with why instead of starting with no model.
   */
  async route(workspaceId: string): Promise<void> {
    if (!this.router) return;
    try {
      const base = await this.router(workspaceId);
      if (base) this.routes.set(workspaceId, base);
      else this.routes.delete(workspaceId);
    } catch (e) {
      if (e instanceof NexusError) throw e;
      throw new NexusError(
        'unavailable',
        `Sessions in this workspace cannot reach Nexus's model gateway: ${errorMessage(e)}`,
      );
    }
  }

  /** A fresh credential for the session (replacing its last): the one thing of its sign-in a container holds. */
  issue(caller: GatewayCaller): string {
    const credential = this.credentials.issue(caller);
    this.deps.redactor.addSecret(credential);
    return credential;
  }

  hasCredential(workspaceId: string, kind: string): boolean {
    return this.deps.hasCredential(workspaceId, kind);
  }

  revoke(sessionId: string): void {
    this.credentials.revoke(sessionId);
  }

  setBudget(scope: BudgetScope, scopeId: string, maxTokens: number | null): void {
    this.usage.setBudget(scope, scopeId, maxTokens);
    this.deps.events.emit('usage.changed', { scope, scopeId });
    for (const [sessionId, workspaceId] of this.stopped)
      if (!this.over({ sessionId, workspaceId })) {
        this.stopped.delete(sessionId);
        this.deps.budgetCleared(sessionId);
      }
  }

  /** The first budget a caller's next request would go over, or null. */
  private over(caller: Pick<GatewayCaller, 'sessionId' | 'workspaceId'>) {
    return this.budgetsOf(caller).find((b) => b.used.total >= b.max) ?? null;
  }

  /** The budgets a caller's next request counts against, each with what is used of it. */
  budgetsOf(
    caller: Pick<GatewayCaller, 'sessionId' | 'workspaceId'>,
  ): { scope: BudgetScope; max: number; used: UsageTotals }[] {
    const day = dayOf(new Date());
    const out: { scope: BudgetScope; max: number; used: UsageTotals }[] = [];
    const check = (scope: BudgetScope, id: string, used: () => UsageTotals) => {
      const max = this.usage.budget(scope, id);
      if (max !== null) out.push({ scope, max, used: used() });
    };
    check('session', caller.sessionId, () => this.usage.session(caller.sessionId));
    check('workspace', caller.workspaceId, () => this.usage.workspace(caller.workspaceId));
    check('day', '', () => this.usage.day(day));
    return out;
  }

  private async upstream(caller: GatewayCaller) {
    const driver = this.deps.drivers.get(caller.agent);
    const secret = await this.deps.credentialFor(caller.workspaceId, caller.agent);
    if (!secret)
      return {
        refused:
          `No credential for ${driver.label} in Nexus: add ${driver.credential.describe} under Settings → Secrets and ` +
          'pick it in Settings → Agent.',
        status: 401,
      };
    this.deps.redactor.addSecret(secret.value);
    return {
      wire: driver.gateway.wire,
      base: driver.gateway.upstream,
      sign: (incoming: Record<string, string | string[] | undefined>) =>
        driver.gateway.headers(secret.kind, secret.value, incoming),
    };
  }

  private refusal(caller: GatewayCaller): string | null {
    const over = this.over(caller);
    if (!over) return null;
    this.stopped.set(caller.sessionId, caller.workspaceId);
    const message =
      `Budget reached in Nexus: this ${over.scope === 'day' ? "day's" : over.scope} cap of ${over.max} tokens is ` +
      `used (${over.used.total}). Raise it in Nexus to go on.`;
    this.deps.budgetReached(caller.sessionId, message);
    return message;
  }

  /** A 429 that names its reset limits the session until then; any success ends a limit it had. */
  private answered(
    sessionId: string,
    status: number,
    headers: Record<string, string | string[] | undefined>,
    body: string,
  ) {
    if (!this.limits) return;
    if (status < 300) return this.limits.answered(sessionId);
    const until = usageLimitReset(status, headers, body, new Date());
    if (until) this.limits.limited(sessionId, until, endsTurn(status, body));
  }

  private async counted(caller: GatewayCaller, requestId: string, counts: TokenCounts): Promise<void> {
    const added = await this.usage.record({
      requestId,
      sessionId: caller.sessionId,
      workspaceId: caller.workspaceId,
      agent: caller.agent,
      taskId: this.deps.taskOf(caller.sessionId),
      counts,
      at: new Date(),
    });
    if (added) this.deps.events.emit('usage.changed', { scope: 'session', scopeId: caller.sessionId });
  }
}
