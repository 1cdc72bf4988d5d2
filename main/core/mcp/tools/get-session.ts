import { Session, SessionRef } from '../../../../shared/contract';
import { defineTool } from '../tool';

export const getSession = defineTool({
  name: 'get_session',
  title: 'Get a session',
  description:
    'Get one session by id or <workspace>/<name>: its status, the agent state from its hooks and the last hook message.',
  ops: ['sessions.get'],
  input: { session: SessionRef },
  output: Session,
  annotations: { readOnlyHint: true, openWorldHint: false },
  run: (args, call) => call('sessions.get', { session: args.session }),
  summarize: (s) =>
    `Session ${s.workspaceName}/${s.name} is ${s.status}; agent ${s.agentState}${s.agentMessage ? `: ${s.agentMessage}` : ''}.`,
});
