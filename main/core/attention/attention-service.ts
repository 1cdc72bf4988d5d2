import {
  deriveAttention,
  newlyNeedingYou,
  rollUp,
  type FleetAttention,
  type ReviewCounts,
} from '../../../shared/attention';
import { needsYouNotification } from '../../../shared/attention-words';
import type { Session, Workspace } from '../../../shared/contract';
import type { FleetSummary, SessionPage } from '../../../shared/contract/attention';
import type { RadarConflict } from '../../../shared/contract/radar';
import { NexusError } from '../../../shared/errors';
import type { Disposable } from '../disposable';
import type { EventBus } from '../events';
import type { Logger } from '../log';
import type { Notifier } from '../ports';
import type { Redactor } from '../redact';

/** Events after which the roll-up may have changed. */
const TRIGGERS: ReadonlySet<string> = new Set([
  'sessions.changed',
  'workspaces.changed',
  'review.changed',
  'radar.changed',
]);

/** What the roll-up is computed from: reads of the workspace, session and review-queue services and the radar. */
export interface AttentionSources {
  workspaces(): Promise<Pick<Workspace, 'id' | 'name' | 'status'>[]>;
  sessions(): Promise<Session[]>;
  reviewCounts(): ReviewCounts;
  /** The conflict radar's conflicts between two finished sessions (each needs the operator). */
  conflicts(): Promise<RadarConflict[]>;
}

export interface AttentionDeps {
  sources: AttentionSources;
  events: EventBus;
  notifier: Notifier;
  redactor: Redactor;
  log: Logger;
}

/**
 * Keeps the fleet attention roll-up current: recomputes when a session, workspace or review-queue
 * event arrives (never on a timer), pushes `attention.changed` when the result differs, and sends a
 * notification for every session that has just entered needs_you, saying why. What it reads is
 * redacted first, so neither the roll-up nor a notification can carry a secret.
 */
export class AttentionService implements Disposable {
  private current: FleetAttention | null = null;
  /** Name and status of each workspace at the last recomputation, for the summary's counts. */
  private workspaces: { name: string; status: string }[] = [];
  private scheduled = false;
  private running: Promise<void> | null = null;
  private subscription: Disposable | null = null;

  constructor(private readonly deps: AttentionDeps) {}

  /** Subscribes to the triggers and schedules the first computation (core's start). */
  follow(): Disposable {
    this.subscription ??= this.deps.events.subscribe((event) => {
      if (TRIGGERS.has(event.name)) this.schedule();
    });
    this.schedule();
    return this;
  }

  async get(): Promise<FleetAttention> {
    if (!this.current) await this.refresh();
    return this.current ?? rollUp([], this.deps.sources.reviewCounts());
  }

  /** The roll-up without its per-session list, plus workspace counts: what get_nexus_info shows by default. */
  async summary(): Promise<FleetSummary> {
    const { counts, needsYou, review, sessions } = await this.get();
    return {
      counts,
      needsYou,
      review,
      workspaces: {
        total: this.workspaces.length,
        byStatus: tally(this.workspaces.map((w) => w.status)),
        sessions: tally(sessions.map((s) => s.workspaceName)),
      },
    };
  }

  /** A page of the per-session roll-up; the cursor is the offset of the next item. */
  async sessions(input: { cursor?: string; limit: number }): Promise<SessionPage> {
    const { sessions } = await this.get();
    const start = input.cursor === undefined ? 0 : Number(input.cursor);
    if (!Number.isInteger(start) || start < 0)
      throw new NexusError('bad_request', 'cursor is not one this call returned.');
    const end = start + input.limit;
    return {
      sessions: sessions.slice(start, end),
      total: sessions.length,
      nextCursor: end < sessions.length ? String(end) : null,
    };
  }

  /** Coalesces bursts of events into one recomputation. */
  schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      void this.refresh().catch((e: unknown) => this.deps.log.warn('attention refresh failed', { error: e }));
    });
  }

  async refresh(): Promise<void> {
    while (this.running) await this.running;
    this.running = this.compute().finally(() => (this.running = null));
    await this.running;
  }

  private async compute(): Promise<void> {
    const { sources, redactor } = this.deps;
    const [workspaces, sessions, conflicts] = redactor.value(
      await Promise.all([
        sources.workspaces(),
        sources.sessions(),
        // The radar's word is one reason among many: without it the roll-up is still right about everything else.
        sources.conflicts().catch((e: unknown) => {
          this.deps.log.warn('the conflict radar could not say its conflicts', { error: e });
          return [];
        }),
      ]),
    );
    this.workspaces = workspaces.map((w) => ({ name: w.name, status: w.status }));
    const running = new Set(workspaces.filter((w) => w.status === 'running').map((w) => w.id));
    const conflictOf = conflictsBySession(conflicts, new Map(sessions.map((s) => [s.id, s.name])));
    const items = sessions.map((s) =>
      deriveAttention({
        session: s,
        health: { agentState: s.agentState, at: s.agentStateAt, message: s.agentMessage },
        workspaceRunning: running.has(s.workspaceId),
        conflict: conflictOf.get(s.id) ?? null,
      }),
    );
    const next = rollUp(items, sources.reviewCounts());
    const before = this.current;
    this.current = next;
    if (before && JSON.stringify(before) === JSON.stringify(next)) return;
    this.deps.events.emit('attention.changed', next);
    for (const item of newlyNeedingYou(before, next)) {
      this.deps.notifier.notify({ ...needsYouNotification(item), target: `session:${item.sessionId}` });
    }
  }

  dispose(): void {
    this.subscription?.dispose();
    this.subscription = null;
  }
}

/** Each session's first conflict with another finished session (by the other's name), for its reason. */
function conflictsBySession(conflicts: readonly RadarConflict[], names: ReadonlyMap<string, string>) {
  const out = new Map<string, { withSession: string; files: number; since: string }>();
  const put = (id: string, other: string | null, c: RadarConflict) => {
    const name = other === null ? undefined : names.get(other);
    if (name !== undefined && !out.has(id)) out.set(id, { withSession: name, files: c.files.length, since: c.since });
  };
  for (const c of [...conflicts].sort((a, b) => a.since.localeCompare(b.since))) {
    put(c.aSessionId, c.bSessionId, c);
    if (c.bSessionId !== null) put(c.bSessionId, c.aSessionId, c);
  }
  return out;
}

function tally(values: string[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const v of values) out[v] = (out[v] ?? 0) + 1;
  return out;
}
