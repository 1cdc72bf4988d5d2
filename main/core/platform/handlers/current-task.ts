import { NexusError } from '../../../../shared/errors';
import type { Task } from '../store/tasks';
import type { ToolContext } from './tool-handler';

/** The run's task, required by the tools that act on "the current task". */
export function currentTask({ run, deps }: ToolContext): Task {
  const task = run.taskId ? deps.tasks.get(run.taskId) : null;
  if (!task)
    throw new NexusError('bad_request', 'This run has no task; task and board tools need a run started for a task.');
  return task;
}
