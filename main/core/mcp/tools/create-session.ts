import { z } from 'zod';
import { Session, SessionName, WorkspaceRef } from '../../../../shared/contract';
import { defineTool } from '../tool';

export const createSession = defineTool({
  name: 'create_session',
  title: 'Create a session',
  description:
    'Create an agent session (its own git worktree and branch, running Claude Code) in a workspace. Returns at once with status "creating"; poll get_session. initial_message becomes the first turn.',
  ops: ['sessions.create'],
  input: {
    workspace: WorkspaceRef,
    name: SessionName,
    initial_message: z
      .string()
      .min(1)
      .max(100_000)
      .optional()
      .describe("The session's first prompt, passed to the agent at launch"),
  },
  output: Session,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
  run: (args, call) =>
    call('sessions.create', {
      workspace: args.workspace,
      name: args.name,
      ...(args.initial_message !== undefined ? { initialMessage: args.initial_message } : {}),
    }),
  summarize: (s) => `Session ${s.workspaceName}/${s.name} (${s.id}) is ${s.status}.`,
});
