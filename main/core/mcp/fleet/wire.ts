import { NexusError } from '../../../../shared/errors';
import type { CoreConfig } from '../../config';
import type { Disposable } from '../../disposable';
import type { Handlers } from '../../handlers';
import type { Logger } from '../../log';
import type { HostAddress, Keychain } from '../../ports';
import type { Db } from '../../store/open';
import type { TokenService } from '../../tokens/tokens';
import { isLoopbackNetwork } from '../../workspaces/network';
import type { WorkspaceEvents } from '../../workspaces/workspace-events';
import type { WorkspaceService } from '../../workspaces/workspace-service';
import { FleetService } from './fleet';
import type { FleetResolvers } from './scope';

export interface FleetWiring {
  db: Db;
  tokens: TokenService;
  keychain: Keychain;
  host: HostAddress;
  dataDir: string;
  config: CoreConfig;
  log: Logger;
  workspaces: Pick<WorkspaceService, 'get' | 'list'>;
  signals: Pick<WorkspaceEvents, 'on'>;
  resolvers: FleetResolvers;
  sessionInWorkspace(sessionId: string, workspaceId: string): boolean;
  bridge(): Promise<{ gateway: string; subnet: string }>;
}

/**
 * Builds the fleet service: credentials revoked when their workspace is removed (and at start-up
 * for workspaces deleted while core was down), and the operations that choose them.
 */
export function createFleet(w: FleetWiring): { fleet: FleetService; subscription: Disposable } {
  const network = w.config.docker.network;
  const fleet = new FleetService({
    db: w.db,
    tokens: w.tokens,
    keychain: w.keychain,
    dataDir: w.dataDir,
    host: w.host,
    log: w.log.child({ component: 'fleet' }),
    reach: network === 'none' ? 'none' : isLoopbackNetwork(network) ? 'loopback' : 'bridge',
    resolvers: w.resolvers,
    sessionInWorkspace: w.sessionInWorkspace,
    rateLimit: w.config.mcp.fleetRateLimit,
    bridge: w.bridge,
  });
  const subscription = w.signals.on('removed', ({ workspaceId }) => {
    fleet
      .removed(workspaceId)
      .catch((e: unknown) => w.log.warn('revoking a fleet credential failed', { workspaceId, error: e }));
  });
  const known = new Set(w.workspaces.list().map((ws) => ws.id));
  void fleet.credentials
    .sweep((id) => known.has(id))
    .catch((e: unknown) => w.log.warn('fleet credential sweep failed', { error: e }));
  return { fleet, subscription };
}

/** fleet.* and the fleet choice of workspaces.create (operator only: no token mints a token). */
export function fleetHandlers(
  fleet: FleetService,
  workspaces: Pick<WorkspaceService, 'get'>,
  create: Handlers['workspaces.create'],
): Pick<Handlers, 'fleet.list' | 'fleet.set' | 'workspaces.create'> {
  return {
    'fleet.list': () => ({ credentials: fleet.credentials.list() }),
    'fleet.set': async ({ workspace, access, allWorkspaces }) => {
      const ws = workspaces.get(workspace);
      return { credential: await fleet.credentials.set(ws, access, allWorkspaces ?? false) };
    },
    'workspaces.create': async ({ fleet: choice, ...input }, ctx) => {
      if (choice && choice.access !== 'none' && ctx.caller.kind !== 'operator')
        throw new NexusError('forbidden', "Only the operator chooses a workspace's fleet credential.");
      const ws = await create(input, ctx);
      if (!choice || choice.access === 'none') return ws;
      try {
        await fleet.credentials.set(ws, choice.access, choice.allWorkspaces ?? false);
      } catch (e) {
        // The workspace exists either way: say so, and keep the cause's code (vault_locked, unavailable, …).
        const cause =
          e instanceof NexusError ? e : new NexusError('internal', 'the keychain or the token store failed.');
        throw new NexusError(
          cause.code,
          `Workspace ${ws.name} was created without fleet access: ${cause.message} Set it under Workspaces → Fleet access.`,
        );
      }
      return ws;
    },
  };
}
