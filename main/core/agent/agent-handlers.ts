import type { Handlers } from '../handlers';
import type { AgentService } from './agent-service';

export function agentHandlers(
  agent: AgentService,
): Pick<Handlers, 'agent.get' | 'agent.setDefaultCredential' | 'agent.setDefaultCodexCredential'> {
  return {
    'agent.get': () => agent.get(),
    'agent.setDefaultCredential': (input) => agent.setDefaultCredential(input.secretId),
    'agent.setDefaultCodexCredential': (input) => agent.setDefaultCodexCredential(input.secretId),
  };
}
