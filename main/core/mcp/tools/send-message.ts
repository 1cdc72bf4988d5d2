import { operations } from '../../../../shared/contract';
import { defineTool, inputFrom } from '../tool';

const input = inputFrom('sessions.sendMessage');

export const sendMessage = defineTool({
  name: 'send_message',
  title: 'Send a message to a session',
  description:
    'Send a message to a running session through its inbox socket. It arrives as a cross-session ' +
    "message: it never answers a pending permission prompt on the operator's behalf. The result says " +
    'what the agent did with it: delivered, held (a bypassPermissions session holds it for approval), ' +
    'denied, refused, dropped, expired, or sent_unconfirmed (no word back in time).',
  ops: ['sessions.sendMessage'],
  input: input.shape,
  output: operations['sessions.sendMessage'].output,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
  run: (args, call) => call('sessions.sendMessage', input.toOp(args)),
  summarize: (r) => `${r.status}: ${r.note}`,
});
