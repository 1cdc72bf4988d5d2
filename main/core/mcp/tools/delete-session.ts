import { operations } from '../../../../shared/contract';
import { defineTool, inputFrom } from '../tool';

const input = inputFrom('sessions.delete');

export const deleteSession = defineTool({
  name: 'delete_session',
  title: 'Delete a session',
  description:
    'Delete a session: end its agent, remove its worktree and its record. Its branch is kept unless ' +
    'delete_branch; a branch with commits not pushed anywhere also needs force.',
  ops: ['sessions.delete'],
  input: input.shape,
  output: operations['sessions.delete'].output,
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
  run: (args, call) => call('sessions.delete', input.toOp(args)),
  summarize: (r) => `Session ${r.id} deleted${r.branchDeleted ? ' with its branch' : '; its branch is kept'}.`,
});
