import type { NatsConnection } from '@nats-io/transport-node';
import type { Disposable } from '../disposable';
import type { Logger } from '../log';
import { HookMessage } from './hook-events';
import type { SessionService } from './session-service';

export const HOOK_SUBJECT_PREFIX = 'nexus.hooks.';

/**
 * Listens on nexus.hooks.* and hands each event to the sessions service. The workspace is read
 * from the subject (each workspace's NATS user may publish only on its own), never from the payload.
 */
export function subscribeHookEvents(nc: NatsConnection, sessions: SessionService, log: Logger): Disposable {
  const sub = nc.subscribe(`${HOOK_SUBJECT_PREFIX}*`, {
    callback: (err, msg) => {
      if (err) return log.warn('hook subscription error', { error: err.message });
      const workspaceId = msg.subject.slice(HOOK_SUBJECT_PREFIX.length);
      let data: unknown;
      try {
        data = msg.json();
      } catch {
        return log.warn('hook event is not JSON', { workspaceId });
      }
      const parsed = HookMessage.safeParse(data);
      if (!parsed.success) return log.warn('hook event rejected', { workspaceId });
      sessions.applyHook(workspaceId, parsed.data);
    },
  });
  return { dispose: () => sub.unsubscribe() };
}
