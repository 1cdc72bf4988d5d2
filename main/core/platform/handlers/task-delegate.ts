import { toolHandler } from './tool-handler';

/** task.delegate: a task ready for another agent right away (no dependency), with an optional role hint. */
export const taskDelegate = toolHandler({
  name: 'task.delegate',
  handle(args, { agent, run, deps }) {
    const task = run.taskId ? deps.tasks.get(run.taskId) : null;
    const t = deps.tasks.create({
      title: args.title,
      body: args.body,
      status: 'ready_for_agent',
      parentId: task ? (task.parentId ?? task.id) : null,
      dependsOn: [],
      roleHint: args.roleHint ?? null,
      project: agent.project,
      createdByRun: run.id,
    });
    deps.feed.changed({ taskId: t.id, kind: 'delegated' });
    return t;
  },
});
