import type { Handlers } from '../handlers';
import type { AgentService } from './agent-service';

export function agentHandlers(agent: AgentService): Pick<Handlers, 'agent.get' | 'agent.setDefaultCredential'> {
  return {
    'agent.get': () => agent.get(),
    'agent.setDefaultCredential': (input) => agent.setDefaultCredential(input.kind, input.secretId),
  };
}
