import type { MessageDelivery } from '../../../../shared/contract/sessions';
import { NexusError } from '../../../../shared/errors';
import type { HelperReport } from '../../../../shared/inbox-protocol';

/** What sessions.sendMessage answers: the agent's own word on the message, or that it gave none. */
export interface DeliveryResult {
  status: MessageDelivery;
  note: string;
}

const NOTES: Record<MessageDelivery, string> = {
  delivered: 'The agent took the message; the model sees it as a message from another session.',
  held:
    'The agent holds the message for approval: the session runs in bypassPermissions, so a message from ' +
    'another session waits until someone approves it in its terminal.',
  denied: 'The agent denied the message (its policy for messages from other sessions refuses it).',
  refused: 'The agent refused the message.',
  dropped: 'The agent dropped the message (its inbox was full, rate-limited, or saw it as a duplicate).',
  expired: 'The message expired in the agent’s queue before the agent took it.',
  sent_unconfirmed:
    'The agent’s inbox took the message and reported no hold, refusal or drop in time; the agent ' +
    'confirms only those, so the model should see it at its next turn (after any open dialog), ' +
    'unconfirmed.',
  queued:
    "The agent's own queue took the message; it becomes a turn of its own when the agent is next idle. No receipt " +
    'follows.',
};

/**
 * The helper's report (inbox-protocol.ts) as the operation's typed result. Statuses the agent sent
 * back are results; a message that never reached the inbox is a typed error.
 */
export function deliveryOf(report: HelperReport, session: string): DeliveryResult {
  const detail = report.detail ? `: ${report.detail}` : '';
  switch (report.outcome) {
    case 'delivered':
    case 'held':
    case 'denied':
    case 'refused':
    case 'dropped':
    case 'expired':
      return { status: report.outcome, note: NOTES[report.outcome] };
    case 'sent':
      return { status: 'sent_unconfirmed', note: NOTES.sent_unconfirmed };
    case 'auth_refused':
      throw new NexusError('forbidden', `The inbox of session ${session} refused the connection${detail}.`);
    case 'socket_missing':
      throw new NexusError('unavailable', `The inbox socket of session ${session} is missing${detail}.`);
    case 'timeout':
      throw new NexusError('timeout', `The inbox of session ${session} did not take the message in time${detail}.`);
    case 'bad_input':
      throw new NexusError('bad_request', `The message cannot be sent${detail}.`);
  }
}
