import { deriveAttention, type AttentionLevel, type SessionAttention } from '../../../../shared/attention';
import type { Session } from '../../../../shared/contract/sessions';

/** What the Sessions list shows: every session, or those at one attention level; and a name search. */
export interface SessionFilter {
  level: AttentionLevel | 'all';
  query: string;
}

export const ALL_SESSIONS: SessionFilter = { level: 'all', query: '' };

/**
 * A session's attention level, as the Overview counts it: the fleet roll-up's (which knows whether
 * the workspace runs), else — a session the roll-up has not caught up with yet — from the session
 * alone.
 */
export function levelOf(session: Session, rolledUp: ReadonlyMap<string, SessionAttention>): AttentionLevel {
  const known = rolledUp.get(session.id);
  if (known) return known.level;
  return deriveAttention({
    session,
    health: { agentState: session.agentState, at: session.agentStateAt, message: session.agentMessage },
    workspaceRunning: true,
  }).level;
}

/** How many sessions are at each level (the filters' counts). */
export function countByLevel(
  sessions: readonly Session[],
  rolledUp: ReadonlyMap<string, SessionAttention>,
): Record<AttentionLevel, number> {
  const counts = { needs_you: 0, working: 0, idle: 0, offline: 0 };
  for (const s of sessions) counts[levelOf(s, rolledUp)]++;
  return counts;
}

/**
 * The sessions the filter lets through, in list order. With no filter the list itself comes back
 * (the same array), so the memoised list does not re-render for nothing.
 */
export function filterSessions(
  sessions: Session[],
  filter: SessionFilter,
  rolledUp: ReadonlyMap<string, SessionAttention>,
): Session[] {
  const query = filter.query.trim().toLowerCase();
  if (filter.level === 'all' && !query) return sessions;
  return sessions.filter(
    (s) =>
      (filter.level === 'all' || levelOf(s, rolledUp) === filter.level) &&
      (!query || s.name.toLowerCase().includes(query) || s.workspaceName.toLowerCase().includes(query)),
  );
}

/**
 * The session a keyboard move lands on: `step` places from `current` in `order` (the list as shown),
 * held at either end; from nothing selected, the first (or the last, moving up).
 */
export function moveSelection(order: readonly string[], current: string | null, step: number): string | null {
  if (order.length === 0) return null;
  const at = current === null ? -1 : order.indexOf(current);
  if (at === -1) return (step < 0 ? order.at(-1) : order[0]) ?? null;
  return order[Math.min(order.length - 1, Math.max(0, at + step))] ?? null;
}

/** How a selection was made: a click adds a history entry, a keyboard move replaces it. */
export type SelectHow = 'push' | 'replace';
