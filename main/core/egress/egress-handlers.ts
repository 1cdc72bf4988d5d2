import type { OpParsedInput } from '../../../shared/contract';
import type { WorkspaceEgress } from './workspace-egress';

/** egress.* operations. Typed by the contract alone; the composition root's mergeHandlers checks them. */
export function egressHandlers(egress: WorkspaceEgress) {
  return {
    'egress.get': (input: OpParsedInput<'egress.get'>) => egress.rule(input.workspace),
    'egress.setHosts': (input: OpParsedInput<'egress.setHosts'>) => {
      egress.setHosts(input.workspace, input.hosts);
      return egress.rule(input.workspace);
    },
    'egress.refusals': (input: OpParsedInput<'egress.refusals'>) => egress.refusals(input.workspace, input.limit),
  };
}
