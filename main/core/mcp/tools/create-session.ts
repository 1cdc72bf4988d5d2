import { Session } from '../../../../shared/contract';
import { NexusError } from '../../../../shared/errors';
import { defineTool, inputFrom } from '../tool';

// A session on a Board task is the UI's to start; over MCP the initial message becomes its task.
const plain = inputFrom('sessions.create', { pick: ['workspace', 'initialMessage', 'agent'] });
// On a tracker issue the name may be left out (issue-<n>-<title words>), and the issue is the first message.
const onIssue = inputFrom('tracker.startSession', { pick: ['name', 'issue'] });

export const createSession = defineTool({
  name: 'create_session',
  title: 'Create a session',
  description:
    'Create an agent session (its own git worktree and branch, running Claude Code) in a workspace. ' +
    'Returns at once with status "creating"; poll get_session. initial_message becomes the first turn. ' +
    "With issue (a number of the workspace's tracker) the issue's title and body are the first turn instead, " +
    "the branch is nexus/issue-<n>-…, the session's task is linked to the issue and name may be left out.",
  ops: ['sessions.create', 'tracker.startSession'],
  input: {
    workspace: plain.shape.workspace,
    name: onIssue.shape.name,
    initial_message: plain.shape.initial_message,
    agent: plain.shape.agent,
    issue: onIssue.shape.issue.optional(),
  },
  output: Session,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
  run: (args, call) => {
    const { issue, name } = onIssue.toOp(args);
    const { workspace, initialMessage, agent } = plain.toOp(args);
    if (issue !== undefined) {
      if (initialMessage !== undefined)
        throw new NexusError(
          'bad_request',
          "A session on an issue starts with the issue's text: leave out initial_message.",
        );
      return call('tracker.startSession', { workspace, issue, name, agent });
    }
    if (name === undefined) throw new NexusError('bad_request', 'Name the session (or give an issue to start from).');
    return call('sessions.create', { workspace, name, initialMessage, agent });
  },
  summarize: (s) => `Session ${s.workspaceName}/${s.name} (${s.id}) is ${s.status}.`,
});
