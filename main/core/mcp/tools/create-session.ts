import { Session } from '../../../../shared/contract';
import { defineTool, inputFrom } from '../tool';

// A session on a Board task is the UI's to start; over MCP the initial message becomes its task.
const input = inputFrom('sessions.create', { omit: ['taskId'] });

export const createSession = defineTool({
  name: 'create_session',
  title: 'Create a session',
  description:
    'Create an agent session (its own git worktree and branch, running Claude Code) in a workspace. ' +
    'Returns at once with status "creating"; poll get_session. initial_message becomes the first turn.',
  ops: ['sessions.create'],
  input: input.shape,
  output: Session,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
  run: (args, call) => call('sessions.create', input.toOp(args)),
  summarize: (s) => `Session ${s.workspaceName}/${s.name} (${s.id}) is ${s.status}.`,
});
