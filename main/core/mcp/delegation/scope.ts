import { operations } from '../../../../shared/contract';
import { NexusError } from '../../../../shared/errors';
import type { CallScope } from '../../handlers';
import type { WorkspaceInfo } from '../../workspaces';
import type { DelegatedScope } from './delegations';

/** How the scope check finds the workspace an operation touches (from the stores: no engine call). */
export interface DelegatedResolvers {
  /** A workspace named by id or name; throws not_found. */
  workspaceOf(ref: string): WorkspaceInfo;
  /** The workspace id of a session named by id or <workspace>/<name>; throws not_found. */
  sessionWorkspaceOf(ref: string): string;
}

const refused = (what: string): NexusError =>
  new NexusError(
    'forbidden',
    `This workspace's delegated credential acts only on its own workspace; ${what}. ` +
      'The operator can widen it (Workspaces → edit → delegation, "all workspaces").',
  );

/**
 * What a look-up found, or null when it is nothing. A name that resolves to nothing answers as
 * another workspace would (`forbidden`), never `not_found`: a delegated credential cannot probe which
 * other workspaces or sessions exist.
 */
function found<T>(lookUp: () => T): T | null {
  try {
    return lookUp();
  } catch (e) {
    if (e instanceof NexusError && e.code === 'not_found') return null;
    throw e;
  }
}

/**
 * The call scope of a delegated credential that has not been widened (none when it has): every
 * operation must name its own workspace (or a session of it), lists are cut to it, and anything
 * else is refused with a typed `forbidden` the model reads as the tool's error. The dispatcher
 * runs it after the class check and the input's parse, around the handler; the workspace it
 * resolved goes on in the call context (`ctx.workspace`), so the handler does not look it up again.
 */
export function delegatedScope(scope: DelegatedScope, resolve: DelegatedResolvers): CallScope | undefined {
  if (scope.allWorkspaces) return undefined;
  const own = scope.workspaceId;
  const ownWorkspace = (ref: string): WorkspaceInfo | null => {
    const ws = found(() => resolve.workspaceOf(ref));
    return ws?.id === own ? ws : null;
  };
  const ownSession = (ref: string): boolean => found(() => resolve.sessionWorkspaceOf(ref)) === own;
  return async (op, input, ctx, run) => {
    const args = (input ?? {}) as { workspace?: unknown; session?: unknown };
    const reach = operations[op].delegated;
    if (reach === 'fleet-wide') return run(input, ctx);
    if (reach === 'own-workspace-listed') {
      const out = (await run(input, ctx)) as { workspaces: { id: string }[] };
      return { ...out, workspaces: out.workspaces.filter((w) => w.id === own) };
    }
    if (reach === 'own-sessions-listed') {
      if (typeof args.workspace === 'string' && !ownWorkspace(args.workspace))
        throw refused(`it cannot list the sessions of workspace ${args.workspace}`);
      return run({ ...args, workspace: own }, ctx);
    }
    if (reach === 'own-workspace' && typeof args.workspace === 'string') {
      const workspace = ownWorkspace(args.workspace);
      if (!workspace) throw refused(`workspace ${args.workspace} is not this one`);
      return run(input, { ...ctx, workspace });
    }
    if (reach === 'own-session' && typeof args.session === 'string') {
      if (!ownSession(args.session)) throw refused(`session ${args.session} is not one of this workspace's`);
      return run(input, ctx);
    }
    if (op === 'workspaces.create') throw refused('it cannot create workspaces');
    throw refused(`${op} is not open to it`);
  };
}
