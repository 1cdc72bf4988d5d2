import { z } from 'zod';
import { operations, SessionRef } from '../../../../shared/contract';
import { defineTool } from '../tool';

export const sendMessage = defineTool({
  name: 'send_message',
  title: 'Send a message to a session',
  description:
    "Send a message to a running session through its inbox socket. It arrives as a cross-session message: it never answers a pending permission prompt on the operator's behalf. The result says what the agent did with it: delivered, held (a bypassPermissions session holds it for approval), denied, refused, dropped, expired, or sent_unconfirmed (no word back in time).",
  ops: ['sessions.sendMessage'],
  input: { session: SessionRef, text: z.string().min(1).max(100_000).describe('The message for the agent') },
  output: operations['sessions.sendMessage'].output,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
  run: (args, call) => call('sessions.sendMessage', { session: args.session, text: args.text }),
  summarize: (r) => `${r.status}: ${r.note}`,
});
