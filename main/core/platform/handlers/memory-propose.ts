import { NexusError } from '../../../../shared/errors';
import { toolHandler } from './tool-handler';

/** memory.propose: adds a pending memory to the review queue; it is invisible until approved. */
export const memoryPropose = toolHandler({
  name: 'memory.propose',
  handle(args, { agent, run, deps }) {
    if (args.scope === 'project' && !agent.project) {
      throw new NexusError('bad_request', 'This agent has no project; propose the memory as private or global.');
    }
    const m = deps.review.proposeMemory({
      content: args.content,
      scope: args.scope,
      project: args.scope === 'project' ? agent.project : null,
      agentId: agent.id,
      runId: run.id,
    });
    return { id: m.id, content: m.content, scope: m.scope, status: m.status, createdAt: m.createdAt };
  },
});
