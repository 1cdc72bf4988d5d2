import type { OpName } from '../../../../shared/contract';
import { NexusError } from '../../../../shared/errors';
import type { CallContext } from '../../handlers';
import type { WorkspaceInfo } from '../../workspaces/runtime';
import type { FleetScope } from './credentials';

/** How the scope check finds the workspace an operation touches (from the stores: no engine call). */
export interface FleetResolvers {
  /** A workspace named by id or name; throws not_found. */
  workspaceOf(ref: string): WorkspaceInfo;
  /** The workspace id of a session named by id or <workspace>/<name>; throws not_found. */
  sessionWorkspaceOf(ref: string): string;
}

type Dispatch = (op: OpName, input: unknown, ctx: CallContext) => Promise<unknown>;

/** Operations that read Nexus as a whole (the fleet summary, what needs the operator). */
const FLEET_WIDE = new Set<OpName>(['app.info', 'attention.summary', 'attention.sessions']);
/** Operations on one workspace named by `workspace`. */
const BY_WORKSPACE = new Set<OpName>([
  'workspaces.get',
  'workspaces.start',
  'workspaces.stop',
  'workspaces.delete',
  'sessions.create',
]);
/** Operations on one session named by `session`. */
const BY_SESSION = new Set<OpName>([
  'sessions.get',
  'sessions.changes',
  'sessions.diff',
  'sessions.push',
  'sessions.delete',
  'sessions.sendMessage',
]);

const refused = (what: string): NexusError =>
  new NexusError(
    'forbidden',
    `This workspace's fleet credential acts only on its own workspace; ${what}. ` +
      'The operator can widen it (Workspaces → edit → fleet access, "all workspaces").',
  );

/**
 * What a look-up found when it is the credential's own workspace, else null. A name that resolves
 * to nothing answers as another workspace would (`forbidden`), never `not_found`: a fleet
 * credential cannot probe which other workspaces or sessions exist.
 */
function ownOrNull<T>(own: string, lookUp: () => T, idOf: (found: T) => string): T | null {
  try {
    const found = lookUp();
    return idOf(found) === own ? found : null;
  } catch (e) {
    if (e instanceof NexusError && e.code === 'not_found') return null;
    throw e;
  }
}
const itself = (id: string): string => id;

/**
 * Wraps the dispatcher for a fleet credential that has not been widened: every operation must
 * name its own workspace (or a session of it), lists are cut to it, and anything else is refused
 * with a typed `forbidden` the model reads as the tool's error. Unknown operations are refused.
 * The workspace it resolved goes on in the call context (`ctx.workspace`), so the handler does
 * not look it up a second time.
 */
export function scopedDispatch(scope: FleetScope, resolve: FleetResolvers, dispatch: Dispatch): Dispatch {
  if (scope.allWorkspaces) return dispatch;
  const own = scope.workspaceId;
  return async (op, input, ctx) => {
    const args = (input ?? {}) as { workspace?: unknown; session?: unknown };
    if (FLEET_WIDE.has(op)) return dispatch(op, input, ctx);
    if (op === 'workspaces.list') {
      const out = (await dispatch(op, input, ctx)) as { workspaces: { id: string }[] };
      return { ...out, workspaces: out.workspaces.filter((w) => w.id === own) };
    }
    if (op === 'sessions.list') {
      const ref = args.workspace;
      if (
        typeof ref === 'string' &&
        !ownOrNull(
          own,
          () => resolve.workspaceOf(ref),
          (w) => w.id,
        )
      )
        throw refused(`it cannot list the sessions of workspace ${args.workspace}`);
      return dispatch(op, { ...args, workspace: own }, ctx);
    }
    if (BY_WORKSPACE.has(op) && typeof args.workspace === 'string') {
      const ref = args.workspace;
      const workspace = ownOrNull(
        own,
        () => resolve.workspaceOf(ref),
        (w) => w.id,
      );
      if (!workspace) throw refused(`workspace ${ref} is not this one`);
      return dispatch(op, input, { ...ctx, workspace });
    }
    if (BY_SESSION.has(op) && typeof args.session === 'string') {
      const ref = args.session;
      if (!ownOrNull(own, () => resolve.sessionWorkspaceOf(ref), itself))
        throw refused(`session ${ref} is not one of this workspace's`);
      return dispatch(op, input, ctx);
    }
    if (op === 'workspaces.create') throw refused('it cannot create workspaces');
    throw refused(`${op} is not open to it`);
  };
}
