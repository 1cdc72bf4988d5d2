import { TaskIssue } from '../../../../shared/contract/tracker';
import { defineTool, inputFrom } from '../tool';

const input = inputFrom('tracker.link');

export const linkTaskToIssue = defineTool({
  name: 'link_task_to_issue',
  title: 'Link a task to a tracker issue',
  description:
    "Link a board task (a session's task_id) to an issue of its workspace's tracker; the issue must exist. " +
    "From then on the task's comments, and its status changes where the tracker's status map says so, are " +
    'mirrored on the issue.',
  ops: ['tracker.link'],
  input: input.shape,
  output: TaskIssue,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: true },
  run: (args, call) => call('tracker.link', input.toOp(args)),
  summarize: (l) => `Task ${l.taskId} is linked to issue ${l.ref}${l.title ? ` (${l.title})` : ''}: ${l.url}`,
});
