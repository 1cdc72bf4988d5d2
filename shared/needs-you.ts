/**
 * "What needs you", pure and in one place: the Overview, the phone, the tray, `get_nexus_info` and
 * `nexus status` all list the same things for the same state — the app's own state first (a vault
 * not set up or locked, Docker or NATS down), then the sessions that wait on the operator (oldest
 * first), then the review queue. Nothing here reads a clock, the DOM, Electron or core.
 */
import { z } from 'zod';
import { ReviewCounts, SessionAttention } from './attention';
import { agentStateWords, sessionLabel } from './attention-words';
import type { AppStatus } from './contract/app';

/** Something of the app itself that needs the operator: its title says what, `reason` is core's why. */
const AppNeed = z.object({
  kind: z.enum(['vault', 'docker', 'nats']),
  /** The component's state (`uninitialized`, `locked`, `unavailable`, `stopped`). */
  state: z.string(),
  title: z.string(),
  reason: z.string(),
});

export const NeedsYouItem = z.discriminatedUnion('kind', [
  AppNeed.extend({ kind: z.literal('vault') }),
  AppNeed.extend({ kind: z.literal('docker') }),
  AppNeed.extend({ kind: z.literal('nats') }),
  z.object({ kind: z.literal('session'), session: SessionAttention }),
  z.object({ kind: z.literal('review'), title: z.string(), review: ReviewCounts }),
]);
export type NeedsYouItem = z.infer<typeof NeedsYouItem>;

export interface NeedsYouInput {
  /** The vault, Docker and NATS; null where this surface cannot see them (the phone). */
  app: AppStatus | null;
  /** The roll-up's sessions that need the operator; `sessions` (every session) lets a request name its session. */
  fleet: { needsYou: readonly SessionAttention[]; sessions?: readonly SessionAttention[] };
  /** Pending permission requests: a request can arrive before the hook event that moves its session. */
  requests?: readonly { sessionId: string; toolName: string; askedAt: string }[];
  review: ReviewCounts;
}

const vaultTitle: Record<string, string> = { uninitialized: 'Vault not set up', locked: 'Vault locked' };

/** The app's own state that stops work: each one a reason nothing else can start. */
function appNeeds(app: AppStatus): NeedsYouItem[] {
  const items: NeedsYouItem[] = [];
  const { vault, docker, nats } = app;
  if (vault.state !== 'unlocked')
    items.push({
      kind: 'vault',
      state: vault.state,
      title: vaultTitle[vault.state] ?? `Vault ${vault.state}`,
      reason: vault.reason,
    });
  if (docker.state === 'unavailable')
    items.push({ kind: 'docker', state: docker.state, title: 'Docker unavailable', reason: docker.reason });
  if (nats.state === 'unavailable' || nats.state === 'stopped')
    items.push({ kind: 'nats', state: nats.state, title: `NATS ${nats.state}`, reason: nats.reason });
  return items;
}

/** Sessions with a pending request the roll-up has not caught up with yet, each once, after the roll-up's. */
function sessionNeeds(fleet: NeedsYouInput['fleet'], requests: NonNullable<NeedsYouInput['requests']>) {
  const listed = new Set(fleet.needsYou.map((i) => i.sessionId));
  const extra: SessionAttention[] = [];
  for (const r of requests) {
    if (listed.has(r.sessionId)) continue;
    const s = fleet.sessions?.find((i) => i.sessionId === r.sessionId);
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

/** "Review: 2 memories, 1 skill waiting". */
export function reviewWords({ memories, skills }: ReviewCounts): string {
  return `Review: ${memories} memor${memories === 1 ? 'y' : 'ies'}, ${skills} skill${skills === 1 ? '' : 's'} waiting`;
}

/** Everything that needs the operator, in the order every surface lists it. */
export function whatNeedsYou({ app, fleet, requests = [], review }: NeedsYouInput): NeedsYouItem[] {
  const items = app ? appNeeds(app) : [];
  for (const session of sessionNeeds(fleet, requests)) items.push({ kind: 'session', session });
  if (review.memories + review.skills > 0) items.push({ kind: 'review', title: reviewWords(review), review });
  return items;
}

const sessionLine = (s: SessionAttention): string => `${sessionLabel(s)} — ${s.reason}`;

/**
 * One line of plain text per item (the tray, an MCP summary, the CLI): "Vault locked: <why>",
 * "api · fix-auth — Permission needed: Bash"; `session` words a session the surface's own way.
 */
export function needsYouLine(item: NeedsYouItem, session = sessionLine): string {
  switch (item.kind) {
    case 'session':
      return session(item.session);
    case 'review':
      return item.title;
    default:
      return `${item.title}: ${item.reason}`;
  }
}
