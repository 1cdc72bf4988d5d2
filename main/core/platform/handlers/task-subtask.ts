import { currentTask } from './current-task';
import { toolHandler } from './tool-handler';

/** task.subtask: a planned step under the current goal, sequenced after the current task. */
export const taskSubtask = toolHandler({
  name: 'task.subtask',
  handle(args, ctx) {
    const task = currentTask(ctx);
    const t = ctx.deps.tasks.create({
      title: args.title,
      body: args.body,
      status: 'planned',
      parentId: task.parentId ?? task.id,
      dependsOn: [task.id],
      project: ctx.agent.project,
      createdByRun: ctx.run.id,
    });
    ctx.deps.feed.changed({ taskId: t.id, kind: 'task' });
    return t;
  },
});
