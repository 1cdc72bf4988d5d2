import { resolve } from 'node:path';
import { NexusError } from '../../../shared/errors';
import type { EventPayload } from '../../../shared/contract';
import { type AgentConfig, AcpSessions, AcpStore, type AgentDrivers } from '../agents';
import type { DockerConfig } from '../docker';
import { type RulesConfig, PermissionRequests, RulesService } from '../permissions';
import type { QuotaConfig, WorkspaceEvents, WorkspaceRuntime } from '../workspaces';
import type { SessionsConfig } from './config';
import type { Disposable } from '../disposable';
import type { EventBus } from '../events';
import type { Logger } from '../log';
import type { PlatformService } from '../platform';
import type { AppPaths } from '../ports';
import type { Db } from '../store';
import { convergeOnWorkspaceStart } from './converge/converge-on-start';
import { forwardHookEvents } from './hooks/hook-subscriber';
import type { HookMessage } from './hooks/hook-events';
import { subjects } from '../../../shared/platform-tools';
import type { Redactor } from '../redact';
import type { ExternalMcpOf } from './launch/external-mcp';
import { SessionService } from './session-service';
import type { SessionSetupHooks } from './setup/session-setup';
import { SessionTerminals } from '../terminal';
import type { AgentCliPresence, SessionGatewayPort } from './launch/session-launcher';
import type { AuditLog } from '../audit';
import type { DelegatedEntryOf } from './launch/session-runs';
import { sessionMemoryOf } from './memory/memory-admission';

export interface SessionsWiring {
  db: Db;
  events: EventBus;
  log: Logger;
  config: {
    sessions: SessionsConfig;
    quota: QuotaConfig;
    agent: AgentConfig;
    rules: RulesConfig;
    docker: DockerConfig;
  };
  paths: AppPaths;
  redactor: Redactor;
  audit: Pick<AuditLog, 'record'>;
  /** The workspaces module's runtime: the only way sessions and terminals reach a container. */
  runtime: WorkspaceRuntime;
  /** The agent kinds (agents/registry.ts). */
  drivers: AgentDrivers;
  /** The model gateway (core.gateway). */
  gateway?: SessionGatewayPort;
  /** The workspaces module's internal events: converge on `started`, clean up on `removed`. */
  signals: Pick<WorkspaceEvents, 'on'>;
  /** Issues and removes each workspace's publish-only hook user, delivers hook events, gives each session a run. */
  platform: Pick<
    PlatformService,
    | 'createHookPublisher'
    | 'removeHookPublisher'
    | 'onHookEvent'
    | 'onPermissionAsk'
    | 'onAcpMessage'
    | 'publish'
    | 'agents'
    | 'createAgent'
    | 'createRun'
    | 'workerUrl'
    | 'endRun'
    | 'runs'
    | 'tasks'
    | 'createTask'
    | 'relayMessage'
    | 'feed'
  >;
  /** core.delegation: each session's `nexus-delegated` MCP entry when its workspace has a delegated credential. */
  delegatedEntry?: DelegatedEntryOf;
  /** The workspace agent's external MCP servers, env secrets resolved (see external-mcp.ts). */
  external?: ExternalMcpOf;
  /** Each session's ports, files and setup before its agent (setup/create-session-setup.ts). */
  setup?: SessionSetupHooks;
  /** Makes a kind's CLI present where the workspace runs (core.workspaces.agentCli; absent: it always is). */
  agentCli?: AgentCliPresence;
}

/** The sessions module as createSessions builds it: its services, its subscriptions, what closes it. */
export interface SessionsModule {
  service: SessionService;
  terminals: SessionTerminals;
  permissions: PermissionRequests;
  rules: RulesService;
  acp: AcpSessions;
  /** Its subscriptions (hook events, converge on workspace start, the hook user's removal, …), made at core's start. */
  react(): Disposable[];
  /** Lets in-flight docker execs finish and ends the permission requests' timers. */
  dispose(): Promise<void>;
}

/**
 * Builds the sessions module: the service, its hook-event subscription, converge on workspace start,
 * the hook user's removal with its workspace, and the live terminals. The worker tools come from `npm run build`
 * (dist/worker). Nothing subscribes until `react()`; call `sessions.converge()` once at start-up.
 */
export function createSessions(w: SessionsWiring): SessionsModule {
  const reactions: (() => Disposable)[] = [];
  const dist = resolve(w.paths.workerContextDir, '..', '..', 'dist', 'worker');
  const log = w.log.child({ feature: 'sessions' });
  const service = new SessionService({
    db: w.db,
    events: w.events,
    log,
    config: w.config.sessions,
    runtime: w.runtime,
    tools: {
      hookScript: resolve(dist, 'nexus-hook.cjs'),
      inboxSendScript: resolve(dist, 'nexus-inbox-send.cjs'),
      relayScript: resolve(dist, 'nexus-hook-relay.cjs'),
      acpBridgeScript: resolve(dist, 'nexus-acp-bridge.cjs'),
    },
    hookTarget: async (workspaceId) => {
      // Without NATS sessions still start, without hook events or platform tools (their reason says so).
      const c = await w.platform.createHookPublisher(workspaceId).catch((e: unknown) => {
        if (e instanceof NexusError && e.code === 'nats_unavailable') return null;
        throw e;
      });
      if (!c) return null;
      return {
        url: c.natsUrl,
        ...(c.user ? { user: c.user, pass: c.password ?? '' } : {}),
        permissionWaitMs: w.config.sessions.permissionWaitMs,
      };
    },
    maxSessionsPerWorkspace: w.config.quota.maxSessionsPerWorkspace,
    memory: sessionMemoryOf(w.config),
    platform: w.platform,
    messages: w.platform,
    drivers: w.drivers,
    gateway: w.gateway,
    startupTimeoutMs: w.config.agent.startupTimeoutMs,
    delegatedEntry: w.delegatedEntry,
    external: w.external,
    setup: w.setup,
    agentCli: w.agentCli,
  });
  reactions.push(
    () => forwardHookEvents(w.platform, service, log),
    () => convergeOnWorkspaceStart(w.signals, service, log),
    () => service.watchMemoryKills(w.signals),
  );
  // The operator sees a kill in Settings → Activity too, beside the session's own reason.
  reactions.push(() =>
    service.on('agentKilledForMemory', ({ sessionId, reason }) =>
      w.audit.record({
        actor: 'nexus',
        transport: 'docker',
        operation: 'sessions.killedForMemory',
        outcome: 'oom_killed',
        durationMs: 0,
        detail: `session:${sessionId} ${reason}`,
      }),
    ),
  );
  reactions.push(() =>
    w.signals.on('removed', ({ workspaceId }) => {
      w.platform
        .removeHookPublisher(workspaceId)
        .catch((e: unknown) => log.warn('removing the hook user failed', { workspaceId, error: e }));
    }),
  );
  const terminals = new SessionTerminals({
    liveWindow: (id) => service.liveWindow(id),
    runtime: w.runtime,
    config: w.config.sessions,
    redactor: w.redactor,
    log: w.log.child({ component: 'terminal' }),
  });
  // Approval rules decide a request before the operator sees it (docs/permissions.md).
  const rules = new RulesService({
    db: w.db,
    fetchHosts: w.config.rules.fetchHosts,
    redactor: w.redactor,
    audit: (e) => w.audit.record(e),
    workspaceIdOf: (ref) => w.runtime.info(ref).id,
    workspaceOfSession: (id) => service.workspaceOf(id),
    changed: () => w.events.emit('rules.changed', {}),
    decided: (d) => w.events.emit('rules.decided', d),
  });
  // A deleted session's grants went with its row; the service forgets them and its count.
  reactions.push(() =>
    w.events.subscribe((m) => {
      const gone =
        m.name === 'sessions.changed' ? (m.payload as EventPayload<'sessions.changed'>).removedId : undefined;
      if (gone) rules.sessionGone(gone);
    }),
  );
  const permissions = new PermissionRequests({
    waitMs: w.config.sessions.permissionWaitMs,
    redactor: w.redactor,
    audit: (e) => w.audit.record(e),
    sessionInWorkspace: (id, ws) => service.inWorkspace(id, ws),
    agentOf: (id) => service.agentOf(id),
    changed: (requests) => w.events.emit('permissions.changed', { requests }),
    rules,
    worktreeOf: (id) => service.worktreeOf(id),
  });
  reactions.push(() => w.platform.onPermissionAsk((ws, data, respond) => void permissions.ask(ws, data, respond)));
  const acp = acpClient(w, service, permissions, log);
  reactions.push(() =>
    w.platform.onAcpMessage(({ workspaceId, event }) => {
      try {
        acp.receive(workspaceId, event);
      } catch (e) {
        log.warn('an ACP bridge message was refused', { workspaceId, error: e });
      }
    }),
  );
  return {
    service,
    terminals,
    permissions,
    rules,
    acp,
    react: () => reactions.map((make) => make()),
    dispose: async () => {
      permissions.dispose();
      // Let in-flight docker execs finish before the engine and db go.
      await service.idle();
    },
  };
}

/**
 * Core as the ACP client of the ACP kinds' sessions (agents/acp): what their bridges publish comes in on the
 * platform's NATS, their permission asks go the one permission path, their turns raise the hook events sessions apply.
 */
function acpClient(
  w: SessionsWiring,
  service: SessionService,
  permissions: PermissionRequests,
  log: Logger,
): AcpSessions {
  const acp = new AcpSessions({
    store: new AcpStore(w.db),
    log: log.child({ component: 'acp' }),
    publish: (workspaceId, sessionId, payload) =>
      w.platform.publish(subjects.acpInFor(workspaceId, sessionId), JSON.stringify(payload)),
    session: (id) => service.acpView(id),
    declaration: (kind) => w.drivers.all.find((d) => d.kind === kind)?.acp ?? null,
    setConversation: (id, conversationId) => service.setConversation(id, conversationId),
    hook: (workspaceId, sessionId, event) =>
      void service.applyHook(workspaceId, {
        sessionId,
        workspaceId,
        at: new Date().toISOString(),
        event: event as HookMessage['event'],
      }),
    ask: (workspaceId, data, respond) => permissions.ask(workspaceId, data, respond),
    withdraw: (sessionId) => permissions.withdraw(sessionId),
    changed: (sessionId) => w.events.emit('sessions.transcriptChanged', { sessionId }),
  });
  w.drivers.bindAcp(acp);
  return acp;
}
