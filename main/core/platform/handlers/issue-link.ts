import type { TaskIssue } from '../../../../shared/contract/tracker';
import { NexusError } from '../../../../shared/errors';
import type { ToolDeps } from './tool-handler';

/**
 * For task.subtask / task.delegate with `issue`: the issue read from the agent's workspace's tracker before the task
 * is stored (a missing issue or tracker refuses the call and stores nothing); link the stored task with the result.
 */
export async function issueLinkFor(
  deps: Pick<ToolDeps, 'mirror'>,
  project: string | null,
  issue: number | undefined,
): Promise<((taskId: string) => TaskIssue) | null> {
  if (issue === undefined) return null;
  if (!project) throw new NexusError('bad_request', 'Your agent belongs to no workspace, so to no tracker.');
  const mirror = deps.mirror.current;
  if (!mirror) throw new NexusError('unavailable', 'The tracker is not running in this Nexus.');
  return mirror.issueLink(project, issue);
}
