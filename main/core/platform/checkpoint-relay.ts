import { randomBytes } from 'node:crypto';
import type { NatsConnection } from '@nats-io/transport-node';
import { NexusError } from '../../../shared/errors';
import { subjects } from '../../../shared/platform-tools';
import { isNoResponders } from './message-relay';

/**
 * Asks a workspace's hook relay for a session's checkpoint (shared/relay-checkpoint.ts) and returns its answer. Null
 * when no relay of that workspace listens (none started yet, one from before relays took checkpoints, an engine's
 * link down) or the connection is closed: the caller takes the runtime's exec. Asked once: a checkpoint whose answer
 * does not come in time may still have been taken, so it is a timeout, never a second run. The reply subject is under
 * the workspace's checkpoint-replies prefix, the one subject there the relay's user may answer on (permissions.ts).
 */
export async function relayCheckpoint(
  nc: NatsConnection,
  workspaceId: string,
  payload: string,
  timeoutMs: number,
): Promise<string | null> {
  if (nc.isClosed()) return null;
  const reply = `${subjects.checkpointRepliesFor(workspaceId)}.${randomBytes(12).toString('hex')}`;
  try {
    const m = await nc.request(subjects.checkpointsFor(workspaceId), payload, {
      timeout: timeoutMs,
      noMux: true,
      reply,
    });
    return m.string();
  } catch (e) {
    if (isNoResponders(e) || nc.isClosed()) return null;
    throw new NexusError('timeout', "The workspace's hook relay did not answer the checkpoint in time.");
  }
}
