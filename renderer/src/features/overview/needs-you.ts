import type { FleetAttention, SessionAttention } from '../../../../shared/attention';
import { agentStateWords } from '../../../../shared/attention-words';
import type { PermissionRequest } from '../../../../shared/contract/permissions';

/**
 * The Needs-you list: the roll-up's items, plus any session with a pending permission request the
 * roll-up has not caught up with yet (the request and the hook event that moves the session to
 * waiting_permission arrive separately), so a request is never missing from the Overview.
 */
export function needsYouItems(fleet: FleetAttention, requests: readonly PermissionRequest[]): SessionAttention[] {
  const listed = new Set(fleet.needsYou.map((i) => i.sessionId));
  const extra: SessionAttention[] = [];
  for (const r of requests) {
    if (listed.has(r.sessionId)) continue;
    const s = fleet.sessions.find((i) => i.sessionId === r.sessionId);
    if (!s) continue;
    listed.add(r.sessionId);
    extra.push({
      ...s,
      level: 'needs_you',
      reason: `${agentStateWords.waiting_permission}: ${r.toolName}`,
      since: r.askedAt,
    });
  }
  return [...fleet.needsYou, ...extra];
}
