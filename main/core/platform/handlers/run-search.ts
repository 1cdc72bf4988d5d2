import { toolHandler } from './tool-handler';

/** run.search: FTS over the calling agent's own finished runs. */
export const runSearch = toolHandler({
  name: 'run.search',
  handle(args, { agent, deps }) {
    const runs = deps.runs.search(agent.id, args.query, args.limit);
    return {
      runs: runs.map((r) => ({ id: r.id, summary: r.summary, status: r.status, taskId: r.taskId, endedAt: r.endedAt })),
    };
  },
});
