import { operations } from '../../../../shared/contract';
import { defineTool, inputFrom } from '../tool';

const input = inputFrom('sessions.push');

export const pushSession = defineTool({
  name: 'push_session',
  title: "Push a session's branch",
  description:
    "Push a session's branch to its workspace's remote with the workspace's vault secret (the token " +
    "never leaves Nexus), and get the provider's compare / new pull-request link. Only committed work is " +
    'pushed. Refused with a reason when the workspace has no secret, the vault is locked, the remote ' +
    'rejects the push (non-fast-forward) or cannot be reached.',
  ops: ['sessions.push'],
  input: input.shape,
  output: operations['sessions.push'].output,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: true },
  run: (args, call) => call('sessions.push', input.toOp(args)),
  summarize: (r) =>
    `Pushed ${r.branch} at ${r.head.slice(0, 12)}${r.created ? ' (new on the remote)' : ''}.` +
    (r.link ? ` Open a ${r.link.provider === 'gitlab' ? 'merge' : 'pull'} request: ${r.link.url}` : ''),
});
