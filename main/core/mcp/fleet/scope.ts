import type { OpName } from '../../../../shared/contract';
import { NexusError } from '../../../../shared/errors';
import type { CallContext } from '../../handlers';
import type { FleetScope } from './credentials';

/** How the scope check finds the workspace an operation touches (from the stores: no engine call). */
export interface FleetResolvers {
  /** The id of a workspace named by id or name; throws not_found. */
  workspaceIdOf(ref: string): string;
  /** The workspace id of a session named by id or <workspace>/<name>; throws not_found. */
  sessionWorkspaceOf(ref: string): Promise<string>;
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
 * Whether a look-up names the credential's own workspace. A name that resolves to nothing answers
 * as another workspace would (`forbidden`), never `not_found`: a fleet credential cannot probe which
 * other workspaces or sessions exist.
 */
async function isOwn(own: string, lookUp: () => string | Promise<string>): Promise<boolean> {
  try {
    return (await lookUp()) === own;
  } catch (e) {
    if (e instanceof NexusError && e.code === 'not_found') return false;
    throw e;
  }
}

/**
 * Wraps the dispatcher for a fleet credential that has not been widened: every operation must
 * name its own workspace (or a session of it), lists are cut to it, and anything else is refused
 * with a typed `forbidden` the model reads as the tool's error. Unknown operations are refused.
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
      if (typeof ref === 'string' && !(await isOwn(own, () => resolve.workspaceIdOf(ref))))
        throw refused(`it cannot list the sessions of workspace ${args.workspace}`);
      return dispatch(op, { ...args, workspace: own }, ctx);
    }
    if (BY_WORKSPACE.has(op) && typeof args.workspace === 'string') {
      const ref = args.workspace;
      if (!(await isOwn(own, () => resolve.workspaceIdOf(ref)))) throw refused(`workspace ${ref} is not this one`);
      return dispatch(op, input, ctx);
    }
    if (BY_SESSION.has(op) && typeof args.session === 'string') {
      const ref = args.session;
      if (!(await isOwn(own, () => resolve.sessionWorkspaceOf(ref))))
        throw refused(`session ${ref} is not one of this workspace's`);
      return dispatch(op, input, ctx);
    }
    if (op === 'workspaces.create') throw refused('it cannot create workspaces');
    throw refused(`${op} is not open to it`);
  };
}
