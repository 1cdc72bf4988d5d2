import type { NatsConnection, Subscription } from '@nats-io/transport-node';
import type { HelperReport } from '../../../shared/inbox-protocol';
import { RelayMessage } from '../../../shared/relay-message';
import { deliverToInbox } from '../nexus-inbox-send/deliver';

/** How long a delivery's report is kept for a repeat of its ask (core asks again for at most ~13 s). */
const KEEP_MS = 5 * 60_000;
/** At most this many deliveries are remembered; the oldest is forgotten first. */
const KEEP_MAX = 2000;

/**
 * The relay's second job: messages core sends to this workspace's sessions (`nexus.messages.<workspaceId>`),
 * delivered into each session's inbox socket by deliver.ts, the report answered on the reply subject core
 * chose. Only core may publish on the messages subject and the relay's user may answer only under
 * `nexus.message-replies.<workspaceId>` (main/core/platform/permissions.ts); a request whose reply subject is
 * elsewhere gets no answer. Core asks again with the same deliveryId when an answer is lost on the way
 * (main/core/platform/message-relay.ts): a repeat is answered with the first delivery's report, in flight or
 * done, and never delivered twice. The subscription comes back with every reconnect of the connection.
 */
export function serveMessages(nc: NatsConnection, workspaceId: string, stateDir: string): Subscription {
  const replies = `nexus.message-replies.${workspaceId}.`;
  const deliveries = new Map<string, Promise<HelperReport>>();
  const deliver = (input: RelayMessage): Promise<HelperReport> => {
    const known = deliveries.get(input.deliveryId);
    if (known) return known;
    const report = deliverToInbox(stateDir, input.sessionId, input.text, input);
    deliveries.set(input.deliveryId, report);
    if (deliveries.size > KEEP_MAX) deliveries.delete(deliveries.keys().next().value as string);
    setTimeout(
      () => deliveries.get(input.deliveryId) === report && deliveries.delete(input.deliveryId),
      KEEP_MS,
    ).unref();
    return report;
  };
  return nc.subscribe(`nexus.messages.${workspaceId}`, {
    callback: (err, msg) => {
      if (err || !msg.reply?.startsWith(replies)) return;
      let input: RelayMessage;
      try {
        input = RelayMessage.parse(JSON.parse(msg.string()));
      } catch {
        const report: HelperReport = { outcome: 'bad_input', detail: 'the relay got a message it cannot read' };
        return void msg.respond(JSON.stringify(report));
      }
      void deliver(input).then((report) => msg.respond(JSON.stringify(report)));
    },
  });
}
