import type { OpParsedInput } from '../../../shared/contract';
import type { Workspace } from '../../../shared/contract/workspaces';
import type { CallContext, Handlers } from '../handlers';
import type { WorkspaceService } from './workspace-service';

type DelegationChoice = OpParsedInput<'workspaces.create'>['delegation'];

/** The delegation step of workspaces.create (core: mcp/delegation): who may choose, then the credential for the new workspace. */
export interface WorkspaceDelegationStep {
  /** Before anything is made: throws when this caller may not make the choice. */
  check(choice: DelegationChoice, ctx: CallContext): void;
  /** After the workspace exists: gives it the chosen credential (throws, saying the workspace exists, when it cannot). */
  apply(workspace: Workspace, choice: DelegationChoice): Promise<void>;
}

type WorkspaceOps =
  | 'workspaces.list'
  | 'workspaces.get'
  | 'workspaces.create'
  | 'workspaces.start'
  | 'workspaces.stop'
  | 'workspaces.delete'
  | 'workspaces.orphans'
  | 'workspaces.removeOrphan'
  | 'workspaces.disk';

/** The workspaces.* operations, each a thin call into the workspace service; create takes the delegation step too. */
export function workspaceHandlers(
  service: WorkspaceService,
  delegation: WorkspaceDelegationStep,
): Pick<Handlers, WorkspaceOps> {
  return {
    'workspaces.list': () => ({ workspaces: service.list() }),
    'workspaces.get': (input) => service.get(input.workspace),
    'workspaces.create': async ({ delegation: choice, ...input }, ctx) => {
      delegation.check(choice, ctx);
      const workspace = await service.create(input);
      await delegation.apply(workspace, choice);
      return workspace;
    },
    'workspaces.start': (input) => service.start(input.workspace),
    'workspaces.stop': (input) => service.stop(input.workspace),
    'workspaces.delete': (input) => service.delete(input.workspace),
    'workspaces.orphans': async () => ({ orphans: await service.orphans() }),
    'workspaces.removeOrphan': (input) => service.removeOrphan(input.containerId),
    'workspaces.disk': (input) => service.disk(input.workspace),
  };
}
