import { randomBytes } from 'node:crypto';
import type { NatsConnection } from '@nats-io/transport-node';
import { NexusError } from '../../../shared/errors';
import { subjects } from '../../../shared/platform-tools';

/**
 * Hands one message for a session to its workspace's hook relay (sessions/inbox/relay-message.ts) and returns
 * the relay's answer. Null when no relay of that workspace listens (none started yet, or one from before relays
 * delivered) or the connection is closed: the caller takes the one-shot helper's path. A relay that listens and
 * does not answer in time is a timeout, never a second delivery. The reply subject is under the workspace's
 * message-replies prefix: the one subject the relay's user may answer on (permissions.ts hookGrant).
 */
export async function relayMessage(
  nc: NatsConnection,
  workspaceId: string,
  payload: string,
  timeoutMs: number,
): Promise<string | null> {
  if (nc.isClosed()) return null;
  const reply = `${subjects.messageRepliesFor(workspaceId)}.${randomBytes(12).toString('hex')}`;
  try {
    const m = await nc.request(subjects.messagesFor(workspaceId), payload, { timeout: timeoutMs, noMux: true, reply });
    return m.string();
  } catch (e) {
    if (isNoResponders(e)) return null;
    throw new NexusError('timeout', "The workspace's hook relay did not report the message's delivery in time.");
  }
}

const isNoResponders = (e: unknown): boolean =>
  typeof (e as { isNoResponders?: unknown }).isNoResponders === 'function' &&
  (e as { isNoResponders(): boolean }).isNoResponders();
