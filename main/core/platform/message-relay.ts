import { randomBytes } from 'node:crypto';
import type { NatsConnection } from '@nats-io/transport-node';
import { NexusError } from '../../../shared/errors';
import { subjects } from '../../../shared/platform-tools';

/**
 * How long one ask waits for the relay's answer before it is asked again. NATS Core is at most once: a request or
 * its reply in flight when a link drops (an engine's SSH cut under its leaf, a nats-server restart) is gone, and
 * the relay answers a repeat of the same delivery id with the first delivery's report, never a second delivery
 * (resources/worker/nexus-hook-relay/messages.ts).
 */
const ASK_SLICE_MS = 3000;
/** Between asks when nothing listened on a repeat: the relay's link is coming back. */
const RELISTEN_MS = 250;

/**
 * Hands one message for a session to its workspace's hook relay (sessions/inbox/relay-message.ts) and returns
 * the relay's answer. Null when no relay of that workspace listens at the first ask (none started yet, or one from
 * before relays delivered) or the connection is closed: the caller takes the one-shot helper's path. Once asked,
 * the message may have been taken, so it is asked again with the same payload (its deliveryId) until `timeoutMs`
 * has passed, never handed to the helper: a relay that does not answer in time is a timeout, never a second
 * delivery. Each reply subject is under the workspace's message-replies prefix: the one subject the relay's user
 * may answer on (permissions.ts hookGrant).
 */
export async function relayMessage(
  nc: NatsConnection,
  workspaceId: string,
  payload: string,
  timeoutMs: number,
): Promise<string | null> {
  const deadline = Date.now() + timeoutMs;
  for (let asked = false; ; asked = true) {
    if (nc.isClosed()) {
      if (!asked) return null;
      break;
    }
    const left = deadline - Date.now();
    if (left <= 0) break;
    const reply = `${subjects.messageRepliesFor(workspaceId)}.${randomBytes(12).toString('hex')}`;
    try {
      const timeout = Math.min(ASK_SLICE_MS, left);
      const m = await nc.request(subjects.messagesFor(workspaceId), payload, { timeout, noMux: true, reply });
      return m.string();
    } catch (e) {
      if (!isNoResponders(e)) continue;
      if (!asked) return null;
      await new Promise((r) => setTimeout(r, Math.min(RELISTEN_MS, Math.max(0, deadline - Date.now()))));
    }
  }
  throw new NexusError('timeout', "The workspace's hook relay did not report the message's delivery in time.");
}

/** A NATS request that nobody subscribed to (the server says so at once). */
export const isNoResponders = (e: unknown): boolean =>
  typeof (e as { isNoResponders?: unknown }).isNoResponders === 'function' &&
  (e as { isNoResponders(): boolean }).isNoResponders();
