import type { EventPayload } from '../../../shared/contract';
import type { AgentState, SessionStatus } from '../../../shared/contract/sessions';
import type { Disposable } from '../disposable';
import type { EventBus } from '../events';
import type { Logger } from '../log';

/** What the resume at a reset reads of a limited session (null: it is gone). */
export interface LimitedView {
  status: SessionStatus;
  agentState: AgentState;
  /** When its last hook came (ISO), null before the first. */
  agentStateAt: string | null;
  /** When the gateway last passed on a 429 naming the reset (ISO). */
  limitedAt: string;
  /** That 429 ended the CLI's turn by itself (usage-limit-parse.ts `endsTurn`: a CLI whose usage limit ends its turn with no hook). */
  endedTurn: boolean;
}

/**
 * What to do with a limited session at its reset:
 * - `resume`: its CLI gave up (its turn ended after the 429: Stop or StopFailure, an open prompt): Nexus says go on;
 * - `wait`: its CLI still holds the turn (waiting out the limit itself, or asking for permission): sending would
 *   start a second turn beside the retried one, so nothing is sent; if the turn ends later, that is looked at again;
 * - `drop`: the session is gone, stopped or exited, or was idle before the 429 (a side request of an idle CLI):
 *   nothing to resume.
 */
export type ResumeDecision = 'resume' | 'wait' | 'drop';

export function resumeDecision(view: LimitedView | null): ResumeDecision {
  if (!view || view.status !== 'running' || view.agentState === 'exited') return 'drop';
  if (view.endedTurn) return 'resume';
  if (view.agentState === 'working' || view.agentState === 'starting' || view.agentState === 'waiting_permission')
    return 'wait';
  // idle or waiting_input: the turn ended; after the 429, it ended because of it.
  return view.agentStateAt !== null && view.agentStateAt >= view.limitedAt ? 'resume' : 'drop';
}

export interface UsageLimitsDeps {
  /** Saves (or clears, null) the session's limit: its row, so the lists show it and a restart re-arms it. */
  mark(sessionId: string, limit: { until: string; at: string; endedTurn: boolean } | null): void;
  /** The session as the decision reads it, null when it is gone. */
  view(sessionId: string): LimitedView | null;
  /** Sends the session the resume message through the consent-free message path. */
  resume(sessionId: string): Promise<unknown>;
  events: Pick<EventBus, 'subscribe'>;
  log: Logger;
  now?: () => number;
}

export const RESUME_MESSAGE = 'Nexus: the usage limit has reset; go on where you stopped.';

/**
 * Usage limits (docs/gateway.md, "Usage limits"): a session whose request the provider refused with a reset time is
 * "limited until" then; a timer at the reset resumes it when its CLI gave up meanwhile, and the next answer that gets
 * through clears the limit. A session deleted or stopped meanwhile is not resumed: its timer goes with it.
 */
export class UsageLimits implements Disposable {
  /** Each limited session's reset (ms) and, once the reset came and its CLI still held the turn, `due`. */
  private readonly limits = new Map<string, { until: number; due: boolean; timer: NodeJS.Timeout | null }>();
  private subscription: Disposable | null = null;
  private readonly now: () => number;

  constructor(private readonly deps: UsageLimitsDeps) {
    this.now = deps.now ?? Date.now;
  }

  /** Follows the sessions: a stopped or deleted one is never resumed, a due one is checked (core's start). */
  follow(): Disposable {
    this.subscription ??= this.deps.events.subscribe((e) => {
      if (e.name !== 'sessions.changed') return;
      const { session, removedId } = e.payload as EventPayload<'sessions.changed'>;
      if (!session) {
        if (removedId) this.forget(removedId);
        return;
      }
      const entry = this.limits.get(session.id);
      if (entry?.due) this.check(session.id);
      else if (entry && (session.status !== 'running' || session.agentState === 'exited')) this.drop(session.id);
    });
    return { dispose: () => this.unfollow() };
  }

  private unfollow(): void {
    this.subscription?.dispose();
    this.subscription = null;
  }

  /** The gateway passed on a 429 that names its reset: the session is limited until then. */
  limited(sessionId: string, until: Date, endedTurn = false): void {
    this.cancel(sessionId);
    const at = new Date(this.now()).toISOString();
    this.deps.mark(sessionId, { until: until.toISOString(), at, endedTurn });
    this.arm(sessionId, until.getTime());
  }

  /**
   * An answer got through. Before the reset it changes nothing: it may be a side request under another limit (a title
   * from a smaller model; measured: resuming on it made the CLI ask again into the limit and be resumed twice). From the
   * reset on, the limit is over: a CLI that had given up goes on (if the timer did not already), one still holding its
   * turn is simply no longer limited.
   */
  answered(sessionId: string): void {
    const entry = this.limits.get(sessionId);
    if (!entry || this.now() < entry.until) return;
    entry.due = true;
    this.check(sessionId);
    if (this.limits.has(sessionId)) this.drop(sessionId);
  }

  /** Re-arms the limits a restarted core finds saved (a reset already past is looked at at once). */
  rearm(saved: readonly { sessionId: string; until: string }[]): void {
    for (const s of saved) this.arm(s.sessionId, Date.parse(s.until));
  }

  /** The session was deleted or stopped: its timer goes, and it is never resumed. */
  forget(sessionId: string): void {
    this.cancel(sessionId);
  }

  /** Whether the session is limited (tests, and the gateway's cheap check on each answer). */
  has(sessionId: string): boolean {
    return this.limits.has(sessionId);
  }

  dispose(): void {
    this.unfollow();
    for (const id of [...this.limits.keys()]) this.cancel(id);
  }

  private arm(sessionId: string, until: number): void {
    const entry = { until, due: false, timer: null as NodeJS.Timeout | null };
    this.limits.set(sessionId, entry);
    // setTimeout's longest wait is about 24.8 days; a reset is believed a week ahead at most (usage-limit-parse.ts).
    entry.timer = setTimeout(
      () => {
        entry.timer = null;
        entry.due = true;
        this.check(sessionId);
      },
      Math.max(0, until - this.now()),
    );
    entry.timer.unref();
  }

  private cancel(sessionId: string): void {
    const entry = this.limits.get(sessionId);
    if (entry?.timer) clearTimeout(entry.timer);
    this.limits.delete(sessionId);
  }

  /** The limit is over for Nexus (resumed, or nothing to resume): no timer, nothing shown. */
  private drop(sessionId: string): void {
    this.cancel(sessionId);
    this.deps.mark(sessionId, null);
  }

  /** At the reset (and on each change of a session whose reset came while its CLI held the turn). */
  private check(sessionId: string): void {
    const view = this.deps.view(sessionId);
    const decision = resumeDecision(view);
    if (decision === 'wait') return;
    this.drop(sessionId);
    if (decision === 'drop') return;
    this.deps.log.info('usage limit reset: resuming the session', { sessionId });
    this.deps
      .resume(sessionId)
      .catch((e: unknown) =>
        this.deps.log.warn('resuming a session after its usage limit failed', { sessionId, error: e }),
      );
  }
}
