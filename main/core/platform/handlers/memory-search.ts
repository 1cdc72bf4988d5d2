import { toolHandler } from './tool-handler';

/** memory.search: FTS over active memories the agent may read (global, its project, its own private). */
export const memorySearch = toolHandler({
  name: 'memory.search',
  handle(args, { agent, deps }) {
    const found = deps.review.memories.search({ agentId: agent.id, project: agent.project }, args.query, args.limit);
    return {
      memories: found.map((m) => ({
        id: m.id,
        content: m.content,
        scope: m.scope,
        status: m.status,
        createdAt: m.createdAt,
      })),
    };
  },
});
