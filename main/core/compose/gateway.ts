import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { AgentDrivers, AgentService, WorkspaceAgent } from '../agents';
import type { CoreConfig } from '../config';
import type { CoreModule } from '../core-module';
import { gatewayHandlers, ModelGateway, RESUME_MESSAGE } from '../gateway';
import type { NameLookup, PlatformService } from '../platform';
import type { SessionService } from '../sessions';
import type { Workspaces } from '../workspaces';
import type { Foundations } from './foundations';

/**
 * The model gateway: every session's model traffic, signed in core with the vault's credential, counted, capped.
 * It listens once the workers' host address is known (compose/worker-host.ts). Sessions are built after it (they
 * launch through it), so what it asks of them goes through `sessions()`, called only when a request or a timer needs it.
 */
export function buildGateway(
  d: Pick<Foundations, 'db' | 'redactor' | 'log' | 'events'> & {
    config: CoreConfig;
    dataDir: string;
    drivers: AgentDrivers;
    agent: AgentService;
    inWorkspaces: WorkspaceAgent;
    workspaces: Workspaces;
    sessions: () => SessionService;
    /** Workspace and session names (their stores), and task titles (the platform's), for the usage export. */
    platform: { names: NameLookup; platform: Pick<PlatformService, 'tasks'> };
  },
) {
  const { config, workspaces, sessions, log } = d;
  const gateway = new ModelGateway({
    db: d.db,
    drivers: d.drivers,
    log,
    redactor: d.redactor,
    events: d.events,
    credentialFor: async (workspaceId, kind) =>
      d.inWorkspaces.credential(workspaces.service.get(workspaceId).agentSecretId, kind),
    hasCredential: (workspaceId, kind) =>
      d.agent.hasCredential(workspaces.service.get(workspaceId).agentSecretId, kind),
    taskOf: (sessionId) => sessions().taskOf(sessionId),
    budgetReached: (sessionId, message) => sessions().waitOnOperator(sessionId, message),
    budgetCleared: (sessionId) => {
      sessions().releaseOperatorWait(sessionId);
      // It goes on where it stopped, through the consent-free message path (it can answer no permission).
      sessions()
        .sendMessage(sessionId, 'Nexus: the budget was raised; go on where you stopped.')
        .catch((e: unknown) => log.warn('resuming a session after its budget was raised failed', { error: e }));
    },
    // A usage limit: the session's row keeps it; at the reset a CLI that gave up goes on through the message path.
    limits: {
      mark: (sessionId, limit) => sessions().setUsageLimit(sessionId, limit),
      view: (sessionId) => sessions().usageLimitView(sessionId),
      resume: (sessionId) => sessions().sendMessage(sessionId, RESUME_MESSAGE),
    },
    portFile: join(d.dataDir, 'gateway-port'),
    config: {
      port: config.gateway.port,
      upstreamCa: config.gateway.upstreamCa ? readFileSync(config.gateway.upstreamCa, 'utf8') : undefined,
    },
  });
  const module: CoreModule = {
    name: 'gateway',
    handlers: gatewayHandlers(gateway, {
      session: (ref) => sessions().ref(ref),
      workspace: (ref) => workspaces.runtime.info(ref),
      names: {
        workspaceName: (id) => d.platform.names.workspaceName(id),
        sessionName: (id) => d.platform.names.session(id)?.name ?? null,
        taskTitle: (id) => d.platform.platform.tasks.get(id)?.title ?? null,
      },
    }),
    react: () => (gateway.limits ? [gateway.limits.follow()] : []),
    // Limits a previous core set are timed again.
    start: () => gateway.limits?.rearm(sessions().usageLimited()),
    dispose: () => gateway.close(),
  };
  return { gateway, module };
}
