import { operations } from '../../../../shared/contract';
import { defineTool, inputFrom } from '../tool';

const input = inputFrom('sessions.list');

export const listSessions = defineTool({
  name: 'list_sessions',
  title: 'List sessions',
  description: 'List agent sessions, of one workspace or of all, with their status and what the agent is doing.',
  ops: ['sessions.list'],
  input: input.shape,
  output: operations['sessions.list'].output,
  annotations: { readOnlyHint: true, openWorldHint: false },
  run: (args, call) => call('sessions.list', input.toOp(args)),
  summarize: ({ sessions }) =>
    sessions.length === 0
      ? 'No sessions.'
      : `${sessions.length} session(s): ${sessions.map((s) => `${s.workspaceName}/${s.name} (${s.status}, ${s.agentState})`).join(', ')}.`,
});
