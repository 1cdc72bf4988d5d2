import { currentTask } from './current-task';
import { issueLinkFor } from './issue-link';
import { toolHandler } from './tool-handler';

/** task.subtask: a planned step under the current goal, sequenced after the current task (linked to `issue`, if given). */
export const taskSubtask = toolHandler({
  name: 'task.subtask',
  async handle(args, ctx) {
    const task = currentTask(ctx);
    const link = await issueLinkFor(ctx.deps, ctx.agent.project, args.issue);
    const t = ctx.deps.tasks.create({
      title: args.title,
      body: args.body,
      status: 'planned',
      parentId: task.parentId ?? task.id,
      dependsOn: [task.id],
      project: ctx.agent.project,
      createdByRun: ctx.run.id,
    });
    link?.(t.id);
    ctx.deps.feed.changed({ taskId: t.id, kind: 'task' });
    return t;
  },
});
