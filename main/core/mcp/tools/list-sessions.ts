import { operations, WorkspaceRef } from '../../../../shared/contract';
import { defineTool } from '../tool';

export const listSessions = defineTool({
  name: 'list_sessions',
  title: 'List sessions',
  description: 'List agent sessions, of one workspace or of all, with their status and what the agent is doing.',
  ops: ['sessions.list'],
  input: {
    workspace: WorkspaceRef.optional().describe('Only the sessions of this workspace (id or name); all when omitted'),
  },
  output: operations['sessions.list'].output,
  annotations: { readOnlyHint: true, openWorldHint: false },
  run: (args, call) => call('sessions.list', args.workspace !== undefined ? { workspace: args.workspace } : {}),
  summarize: ({ sessions }) =>
    sessions.length === 0
      ? 'No sessions.'
      : `${sessions.length} session(s): ${sessions.map((s) => `${s.workspaceName}/${s.name} (${s.status}, ${s.agentState})`).join(', ')}.`,
});
