import type { Disposable } from '../disposable';
import type { Logger } from '../log';
import type { HookEvent } from '../platform/platform-service';
import { HookMessage } from './hook-events';
import type { SessionService } from './session-service';

/** Where hook events come from: core.platform, which subscribes to nexus.hooks.* on its NATS. */
export interface HookEventSource {
  onHookEvent(handler: (e: HookEvent) => void): Disposable;
}

/**
 * Hands each hook event to the sessions service. The workspace is the one in the subject (each
 * workspace's NATS user may publish only on its own), never the one the payload claims.
 */
export function forwardHookEvents(source: HookEventSource, sessions: SessionService, log: Logger): Disposable {
  return source.onHookEvent(({ workspaceId, event }) => {
    const parsed = HookMessage.safeParse(event);
    if (!parsed.success) return log.warn('hook event rejected', { workspaceId });
    sessions.applyHook(workspaceId, parsed.data);
  });
}
