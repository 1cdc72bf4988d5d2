import type { Disposable } from '../../disposable';
import type { Logger } from '../../log';
import type { HookEvent } from '../../platform';
import { HookMessage, RelayNotice } from './hook-events';
import type { SessionService } from '../session-service';

const SEEN_MAX = 50_000;

/** Where hook events come from: core.platform, which subscribes to nexus.hooks.* on its NATS. */
export interface HookEventSource {
  onHookEvent(handler: (e: HookEvent) => void): Disposable;
}

/**
 * Hands each hook event to the sessions service. The workspace is the one in the subject (each
 * workspace's NATS user may publish only on its own), never the one the payload claims. A relay
 * that says it started after dying (sessions/hooks/hook-relay.ts) makes the workspace's sessions say so.
 * The relay sends again an event core did not answer in time (a dead connection, a slow core): a
 * copy of one already applied (same relay run and seq) is dropped.
 */
export function forwardHookEvents(
  source: HookEventSource,
  sessions: Pick<SessionService, 'applyHook' | 'noteHookGap'>,
  log: Logger,
): Disposable {
  const seen = new Set<string>();
  return source.onHookEvent(({ workspaceId, event }) => {
    const notice = RelayNotice.safeParse(event);
    if (notice.success) {
      const { probe, crashes, dropped } = notice.data.relay;
      if (probe || (crashes === 0 && !dropped)) return;
      log.warn('the hook relay lost events (it died, or NATS was down too long)', { workspaceId, crashes, dropped });
      return sessions.noteHookGap(workspaceId);
    }
    const parsed = HookMessage.safeParse(event);
    if (!parsed.success) return log.warn('hook event rejected', { workspaceId });
    const { relayRun, seq } = parsed.data;
    if (relayRun && seq !== undefined) {
      const key = `${workspaceId} ${relayRun} ${seq}`;
      if (seen.has(key)) return;
      seen.add(key);
      // Copies come within seconds or minutes: the oldest keys go first.
      if (seen.size > SEEN_MAX) seen.delete(seen.values().next().value!);
    }
    sessions.applyHook(workspaceId, parsed.data);
  });
}
