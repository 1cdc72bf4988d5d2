import { ChangesSummary, Session } from '../../../../shared/contract';
import { defineTool, inputFrom } from '../tool';

const input = inputFrom('sessions.get');

export const getSession = defineTool({
  name: 'get_session',
  title: 'Get a session',
  description:
    'Get one session by id or <workspace>/<name>: its status, the agent state from its hooks, the last ' +
    'hook message, and its branch beside the base (commits ahead/behind, changed files; null while its ' +
    'workspace is not running).',
  ops: ['sessions.get', 'sessions.changes'],
  input: input.shape,
  output: Session.extend({ changes: ChangesSummary.nullable() }),
  annotations: { readOnlyHint: true, openWorldHint: false },
  run: async (args, call) => {
    const s = await call('sessions.get', input.toOp(args));
    const changes =
      s.status === 'creating' ? null : await call('sessions.changes', { session: s.id }).catch(() => null);
    return { ...s, changes };
  },
  summarize: (s) =>
    `Session ${s.workspaceName}/${s.name} is ${s.status}; agent ${s.agentState}${s.agentMessage ? `: ${s.agentMessage}` : ''}.` +
    (s.changes
      ? ` Branch ${s.branch}: ${s.changes.ahead} ahead of ${s.changes.base}, ${s.changes.behind} behind, ` +
        `${s.changes.changedFiles} file(s) changed.`
      : ''),
});
