import { operations } from '../../../../shared/contract';
import { defineTool, inputFrom } from '../tool';

const input = inputFrom('tracker.set');

export const setWorkspaceTracker = defineTool({
  name: 'set_workspace_tracker',
  title: "Set a workspace's tracker",
  description:
    "Set (or with tracker null, clear) a workspace's issue tracker: kind (redmine or github), url, project " +
    '(Redmine identifier or GitHub owner/repo), secretId (a vault secret holding the API key or token, never ' +
    'shown), statusMap (task status → tracker status) and pickup (issues that start sessions by themselves). ' +
    "Comments on linked tasks are then mirrored there. Needs a vault-class token: it decides where a secret's " +
    'value is sent.',
  ops: ['tracker.set'],
  input: input.shape,
  output: operations['tracker.set'].output,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: true },
  run: (args, call) => call('tracker.set', input.toOp(args)),
  summarize: (r) =>
    r.tracker
      ? `Workspace ${r.workspaceId} mirrors to ${r.tracker.kind} ${r.tracker.project} at ${r.tracker.url}.`
      : `Workspace ${r.workspaceId} has no tracker now.`,
});
