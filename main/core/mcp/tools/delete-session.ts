import { operations, SessionRef } from '../../../../shared/contract';
import { defineTool } from '../tool';

export const deleteSession = defineTool({
  name: 'delete_session',
  title: 'Delete a session',
  description: 'Delete a session: end its agent, remove its own worktree and branch, and its record.',
  ops: ['sessions.delete'],
  input: { session: SessionRef },
  output: operations['sessions.delete'].output,
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
  run: (args, call) => call('sessions.delete', { session: args.session }),
  summarize: (r) => `Session ${r.id} deleted.`,
});
