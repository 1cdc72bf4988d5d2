import type { NatsConnection, Subscription } from '@nats-io/transport-node';
import type { HelperReport } from '../../../main/core/sessions/inbox/inbox-protocol';
import { RelayMessage } from '../../../main/core/sessions/inbox/relay-message';
import { deliverToInbox } from '../nexus-inbox-send/deliver';

/**
 * The relay's second job: messages core sends to this workspace's sessions (`nexus.messages.<workspaceId>`),
 * delivered into each session's inbox socket by deliver.ts, the report answered on the reply subject core
 * chose. Only core may publish on the messages subject and the relay's user may answer only under
 * `nexus.message-replies.<workspaceId>` (main/core/platform/permissions.ts); a request whose reply subject is
 * elsewhere gets no answer. The subscription comes back with every reconnect of the connection.
 */
export function serveMessages(nc: NatsConnection, workspaceId: string, stateDir: string): Subscription {
  const replies = `nexus.message-replies.${workspaceId}.`;
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
      void deliverToInbox(stateDir, input.sessionId, input.text, input).then((report) =>
        msg.respond(JSON.stringify(report)),
      );
    },
  });
}
