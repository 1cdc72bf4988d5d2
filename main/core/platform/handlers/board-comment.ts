import { currentTask } from './current-task';
import { toolHandler } from './tool-handler';

/** board.comment: a progress comment on the run's task card. */
export const boardComment = toolHandler({
  name: 'board.comment',
  async handle(args, ctx) {
    const task = currentTask(ctx);
    const c = await ctx.deps.board.add({ taskId: task.id, runId: ctx.run.id, agentId: ctx.agent.id, body: args.body });
    ctx.deps.feed.changed({ taskId: task.id, kind: 'comment' });
    return { id: c.id, taskId: c.taskId, body: c.body, createdAt: c.createdAt };
  },
});
