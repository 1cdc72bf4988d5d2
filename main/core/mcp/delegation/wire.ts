import { NexusError } from '../../../../shared/errors';
import type { CoreConfig } from '../../config';
import type { Disposable } from '../../disposable';
import type { Handlers } from '../../handlers';
import type { Logger } from '../../log';
import type { HostAddress } from '../../ports';
import type { Db } from '../../store';
import type { TokenService } from '../../tokens';
import type { CoreSecrets } from '../../vault';
import { SessionLookup, SessionStore } from '../../sessions';
import { isLoopbackNetwork } from '../../docker';
import type { WorkspaceRuntime, WorkspaceEvents, WorkspaceDelegationStep, WorkspaceService } from '../../workspaces';
import { DelegationService } from './delegation-service';
import type { DelegatedResolvers } from './scope';

export interface DelegationWiring {
  db: Db;
  tokens: TokenService;
  /** Where delegated secrets are kept: the OS keychain, else sealed in the vault. */
  secrets: CoreSecrets;
  host: HostAddress;
  dataDir: string;
  config: CoreConfig;
  log: Logger;
  workspaces: Pick<WorkspaceService, 'list'>;
  /** The workspaces' runtime: the store-backed look-up of a workspace by id or name (no engine call). */
  runtime: Pick<WorkspaceRuntime, 'info'>;
  signals: Pick<WorkspaceEvents, 'on'>;
  bridge(): Promise<{ gateway: string; subnet: string }>;
}

/**
 * Builds the delegation service: its scope finds workspaces and sessions in the stores (so it needs no
 * session service, and is built before it), credentials are revoked when their workspace is
 * removed (subscribed by `react()`), and `start()` sweeps those of workspaces deleted while core was down.
 */
export function createDelegation(w: DelegationWiring): {
  delegation: DelegationService;
  react(): Disposable[];
  start(): void;
} {
  const sessions = new SessionLookup(new SessionStore(w.db), w.runtime);
  const resolvers: DelegatedResolvers = {
    workspaceOf: (ref) => w.runtime.info(ref),
    sessionWorkspaceOf: (ref) => sessions.row(ref).workspace_id,
  };
  const network = w.config.docker.network;
  const delegation = new DelegationService({
    db: w.db,
    tokens: w.tokens,
    secrets: w.secrets,
    dataDir: w.dataDir,
    host: w.host,
    log: w.log.child({ component: 'delegation' }),
    reach: network === 'none' ? 'none' : isLoopbackNetwork(network) ? 'loopback' : 'bridge',
    resolvers,
    sessionInWorkspace: (id, workspaceId) => sessions.inWorkspace(id, workspaceId),
    rateLimit: w.config.mcp.delegationRateLimit,
    bridge: w.bridge,
  });
  const react = (): Disposable[] => [
    w.signals.on('removed', ({ workspaceId }) => {
      delegation
        .removed(workspaceId)
        .catch((e: unknown) => w.log.warn('revoking a delegated credential failed', { workspaceId, error: e }));
    }),
  ];
  const start = (): void => {
    const known = new Set(w.workspaces.list().map((ws) => ws.id));
    void delegation.credentials
      .sweep((id) => known.has(id))
      .catch((e: unknown) => w.log.warn('delegated credential sweep failed', { error: e }));
  };
  return { delegation, react, start };
}

/** delegation.*: the operator's list and choice of workspaces' delegated credentials. */
export function delegationHandlers(
  delegation: DelegationService,
  workspaces: Pick<WorkspaceService, 'get'>,
): Pick<Handlers, 'delegation.list' | 'delegation.set'> {
  return {
    'delegation.list': () => ({ credentials: delegation.credentials.list() }),
    'delegation.set': async ({ workspace, access, allWorkspaces }) => {
      const ws = workspaces.get(workspace);
      return { credential: await delegation.credentials.set(ws, access, allWorkspaces ?? false) };
    },
  };
}

/** workspaces.create's delegation step: only the operator chooses a credential (no token mints a token), set once the workspace exists. */
export function delegationStep(delegation: DelegationService): WorkspaceDelegationStep {
  return {
    check: (choice, ctx) => {
      if (choice && choice.access !== 'none' && ctx.caller.kind !== 'operator')
        throw new NexusError('forbidden', "Only the operator chooses a workspace's delegated credential.");
    },
    apply: async (ws, choice) => {
      if (!choice || choice.access === 'none') return;
      try {
        await delegation.credentials.set(ws, choice.access, choice.allWorkspaces ?? false);
      } catch (e) {
        // The workspace exists either way: say so, and keep the cause's code (vault_locked, unavailable, …).
        const cause =
          e instanceof NexusError ? e : new NexusError('internal', 'the keychain or the token store failed.');
        throw new NexusError(
          cause.code,
          `Workspace ${ws.name} was created without delegation: ${cause.message} Set it under Workspaces → Delegation.`,
        );
      }
    },
  };
}
