import type { OpParsedInput } from '../../../shared/contract';
import type { AgentService } from './agent-service';

/**
 * agent.* operations. Typed by the contract alone (not core's Handlers, which would tie this room's face to the
 * workspaces'); the composition root's mergeHandlers checks them against Handlers.
 */
export function agentHandlers(agent: AgentService) {
  return {
    'agent.get': () => agent.get(),
    'agent.setDefaultCredential': (input: OpParsedInput<'agent.setDefaultCredential'>) =>
      agent.setDefaultCredential(input.kind, input.secretId),
  };
}
