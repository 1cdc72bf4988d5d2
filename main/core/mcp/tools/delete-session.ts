import { operations, SessionRef } from '../../../../shared/contract';
import { defineTool } from '../tool';

export const deleteSession = defineTool({
  name: 'delete_session',
  title: 'Delete a session',
  description:
    'Delete a session: end its agent, remove its worktree and its record. Its branch is kept unless delete_branch; a branch with commits not pushed anywhere also needs force.',
  ops: ['sessions.delete'],
  input: {
    session: SessionRef,
    delete_branch: operations['sessions.delete'].input.shape.deleteBranch,
    force: operations['sessions.delete'].input.shape.force,
  },
  output: operations['sessions.delete'].output,
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
  run: (args, call) =>
    call('sessions.delete', {
      session: args.session,
      ...(args.delete_branch !== undefined ? { deleteBranch: args.delete_branch } : {}),
      ...(args.force !== undefined ? { force: args.force } : {}),
    }),
  summarize: (r) => `Session ${r.id} deleted${r.branchDeleted ? ' with its branch' : '; its branch is kept'}.`,
});
