import { issueLinkFor } from './issue-link';
import { toolHandler } from './tool-handler';

/**
 * task.delegate: a task ready for another agent right away (no dependency), with an optional role hint, linked to
 * `issue` of the workspace's tracker if given.
 */
export const taskDelegate = toolHandler({
  name: 'task.delegate',
  async handle(args, { agent, run, deps }) {
    const task = run.taskId ? deps.tasks.get(run.taskId) : null;
    const link = await issueLinkFor(deps, agent.project, args.issue);
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
    link?.(t.id);
    deps.feed.changed({ taskId: t.id, kind: 'delegated' });
    return t;
  },
});
