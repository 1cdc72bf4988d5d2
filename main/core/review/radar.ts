import type { EventPayload } from '../../../shared/contract';
import type { LandResult, RadarConflict, WorkspaceRadar } from '../../../shared/contract/radar';
import type { Session } from '../../../shared/contract/sessions';
import { NexusError } from '../../../shared/errors';
import { DisposableStore, toDisposable, type Disposable } from '../disposable';
import { RadarGit, type PairResult } from './radar-git';
import { KeyedQueue, sessionTarget, type ReviewDeps } from './review-deps';

/** How long one branch watch waits in the container before it answers anyway. */
const WATCH_SECS = 10;

interface WorkspaceState {
  base: string | null;
  heads: Map<string, string>;
  /** By pair key (`a\0b`, a's branch sorted first; the base as b). */
  conflicts: Map<string, RadarConflict>;
  at: string | null;
  /** What was last told, to tell only changes. */
  told: string;
}

const live = (s: Session): boolean => s.status !== 'creating';
const done = (s: Session | undefined): boolean => s?.agentState === 'idle' || s?.agentState === 'exited';

/**
 * Conflict radar: whenever a session branch of a workspace moves (a commit: the workspace's branch watch
 * answers) or a session's turn ends, its branch is checked against every other live session branch of the
 * workspace and the base with `git merge-tree --write-tree`; overlaps show on both sessions with files and
 * hunks, with a suggested landing order. `land` merges a session's branch into the base.
 */
export class ConflictRadar {
  private readonly git: RadarGit;
  private readonly state = new Map<string, WorkspaceState>();
  /** One check of a workspace at a time. */
  private readonly queue = new KeyedQueue();
  private readonly watching = new Set<string>();
  private disposed = false;

  constructor(private readonly d: ReviewDeps) {
    this.git = new RadarGit(d.runtime, d.config.repoDir);
  }

  /** Watches each workspace that has sessions; checks on turn ends; follows sessions coming, going and finishing. */
  follow(): Disposable {
    const subs = new DisposableStore();
    subs.add(toDisposable(() => void (this.disposed = true)));
    subs.add(
      this.d.sessions.on('turnEnded', ({ workspaceId, sessionId }) => {
        this.ensureWatch(workspaceId);
        void this.d.sessions
          .get(sessionId)
          .then((s) => this.check(workspaceId, new Set([s.branch])))
          .catch((e: unknown) => this.d.log.debug('radar check at turn end failed', { sessionId, error: e }));
      }),
    );
    subs.add(
      this.d.events.subscribe((e) => {
        if (e.name !== 'sessions.changed') return;
        const p = e.payload as EventPayload<'sessions.changed'>;
        // A new session (a create emits it `creating` first) starts its workspace's watch; other changes are hook
        // events, which must cost no engine call (they only move the needs-you flags, read from the store).
        if (p.session) {
          if (p.session.status === 'creating') this.ensureWatch(p.session.workspaceId);
          void this.retell(p.session.workspaceId);
        } else if (p.removedId) for (const id of this.state.keys()) void this.check(id, new Set());
      }),
    );
    void this.d.sessions
      .list()
      .then((all) => new Set(all.map((s) => s.workspaceId)).forEach((w) => this.ensureWatch(w)));
    return subs;
  }

  /** The workspace's radar as last checked. */
  async get(workspaceRef: string): Promise<WorkspaceRadar> {
    const ws = this.d.runtime.find(workspaceRef);
    if (!ws) throw new NexusError('not_found', `No workspace "${workspaceRef}".`);
    return this.view(ws.id, await this.d.sessions.list(ws.id));
  }

  /** Conflicts between two finished sessions, every workspace: what the attention roll-up shows as Needs you. */
  async needingYou(): Promise<RadarConflict[]> {
    const out: RadarConflict[] = [];
    for (const [workspaceId, st] of this.state) {
      if (st.conflicts.size === 0) continue;
      const radar = this.view(workspaceId, await this.d.sessions.list(workspaceId));
      out.push(...radar.conflicts.filter((c) => c.needsYou));
    }
    return out;
  }

  private ensureWatch(workspaceId: string): void {
    if (this.disposed || this.watching.has(workspaceId)) return;
    this.watching.add(workspaceId);
    void this.watch(workspaceId).finally(() => this.watching.delete(workspaceId));
  }

  /** One exec at a time that answers when a branch head moves; stops with the workspace or its last session. */
  private async watch(workspaceId: string): Promise<void> {
    let known = '';
    let failures = 0;
    while (!this.disposed) {
      const ws = this.d.runtime.find(workspaceId);
      if (!ws?.running || !ws.containerId) return;
      const sessions = (await this.d.sessions.list(workspaceId)).filter(live);
      if (sessions.length === 0) return;
      try {
        const st = this.stateOf(workspaceId);
        const liveBranches = sessions.map((s) => s.branch);
        const seen = await this.git.watch(ws, known, WATCH_SECS, liveBranches);
        failures = 0;
        if (seen.raw === known) continue;
        known = seen.raw;
        const moved = new Set<string>();
        for (const [branch, sha] of seen.heads) if (st.heads.get(branch) !== sha) moved.add(branch);
        for (const branch of st.heads.keys()) if (!seen.heads.has(branch)) moved.add(branch);
        const baseMoved = seen.base !== st.base || (seen.base !== null && moved.has(seen.base));
        st.heads = seen.heads;
        st.base = seen.base;
        const checked = seen.results;
        if (checked) await this.apply(workspaceId, checked);
        else await this.check(workspaceId, baseMoved ? 'all' : moved);
      } catch (e) {
        if (++failures >= 3)
          return void this.d.log.warn('the radar stopped watching a workspace', { workspaceId, error: e });
        await new Promise((r) => setTimeout(r, 2000));
      }
    }
  }

  private stateOf(workspaceId: string): WorkspaceState {
    let st = this.state.get(workspaceId);
    if (!st)
      this.state.set(workspaceId, (st = { base: null, heads: new Map(), conflicts: new Map(), at: null, told: '' }));
    return st;
  }

  /**
   * Checks the `moved` branches (or every pair: `all`) against every other live session branch and the
   * base; forgets pairs whose session is gone; tells `radar.changed` when the picture changed.
   */
  check(workspaceId: string, moved: Set<string> | 'all'): Promise<void> {
    return this.queue.run(workspaceId, async () => {
      const ws = this.d.runtime.find(workspaceId);
      if (!ws?.running || !ws.containerId) return;
      const sessions = (await this.d.sessions.list(workspaceId)).filter(live);
      const st = this.stateOf(workspaceId);
      const branches = sessions.map((s) => s.branch).filter((b) => b !== st.base);
      const pairs = new Map<string, [string, string]>();
      for (const a of branches) {
        if (moved !== 'all' && !moved.has(a) && !(st.base && moved.has(st.base))) continue;
        for (const b of branches) if (b !== a) pairs.set(key(a, b), a < b ? [a, b] : [b, a]);
        if (st.base) pairs.set(key(a, st.base, true), [a, st.base]);
      }
      const results = await this.git.check(ws, [...pairs.values()]);
      const alive = new Set(branches);
      for (const [k, c] of st.conflicts)
        if (!alive.has(c.aBranch) || (c.bSessionId !== null && !alive.has(c.bBranch))) st.conflicts.delete(k);
      const byBranch = new Map(sessions.map((s) => [s.branch, s]));
      for (const r of results) this.record(st, r, byBranch);
      st.at = new Date().toISOString();
      this.tell(workspaceId, sessions);
    });
  }

  /** Records checks the branch watch already made (in the workspace's queue, like a check), then tells. */
  private apply(workspaceId: string, results: PairResult[]): Promise<void> {
    return this.queue.run(workspaceId, async () => {
      const sessions = (await this.d.sessions.list(workspaceId)).filter(live);
      const st = this.stateOf(workspaceId);
      const byBranch = new Map(sessions.map((s) => [s.branch, s]));
      for (const r of results) this.record(st, r.b !== st.base && r.a > r.b ? swapped(r) : r, byBranch);
      st.at = new Date().toISOString();
      this.tell(workspaceId, sessions);
    });
  }

  private record(st: WorkspaceState, r: PairResult, byBranch: Map<string, Session>): void {
    const k = key(r.a, r.b, r.b === st.base);
    if (r.state === 'unknown') return;
    if (r.state !== 'conflict') return void st.conflicts.delete(k);
    const a = byBranch.get(r.a);
    if (!a) return;
    const b = r.b === st.base ? null : (byBranch.get(r.b) ?? null);
    st.conflicts.set(k, {
      aSessionId: a.id,
      aBranch: r.a,
      bSessionId: b?.id ?? null,
      bBranch: r.b,
      files: r.files,
      needsYou: false,
      since: st.conflicts.get(k)?.since ?? new Date().toISOString(),
    });
  }

  /** Agent states moved (a session finished): the needs-you flags may have. */
  private async retell(workspaceId: string): Promise<void> {
    const st = this.state.get(workspaceId);
    if (!st || st.conflicts.size === 0) return;
    this.tell(workspaceId, await this.d.sessions.list(workspaceId));
  }

  private tell(workspaceId: string, sessions: Session[]): void {
    const radar = this.view(workspaceId, sessions);
    const text = JSON.stringify({ ...radar, at: null });
    const st = this.stateOf(workspaceId);
    if (text === st.told) return;
    st.told = text;
    this.d.events.emit('radar.changed', radar);
  }

  private view(workspaceId: string, sessions: Session[]): WorkspaceRadar {
    const st = this.state.get(workspaceId);
    const byId = new Map(sessions.map((s) => [s.id, s]));
    const conflicts = [...(st?.conflicts.values() ?? [])]
      .map((c) => ({
        ...c,
        needsYou: c.bSessionId !== null && done(byId.get(c.aSessionId)) && done(byId.get(c.bSessionId)),
      }))
      .sort((x, y) => (x.aBranch + x.bBranch).localeCompare(y.aBranch + y.bBranch));
    const count = (id: string) => conflicts.filter((c) => c.aSessionId === id || c.bSessionId === id).length;
    const landingOrder = sessions
      .filter(live)
      .map((s) => ({
        sessionId: s.id,
        branch: s.branch,
        conflicts: count(s.id),
        base: conflicts.some((c) => c.aSessionId === s.id && c.bSessionId === null),
      }))
      .sort((x, y) => Number(x.base) - Number(y.base) || x.conflicts - y.conflicts || x.branch.localeCompare(y.branch))
      .map(({ sessionId, branch, conflicts: n }) => ({ sessionId, branch, conflicts: n }));
    return { workspaceId, base: st?.base ?? null, conflicts, landingOrder, at: st?.at ?? null };
  }

  /** Merges the session's branch into the base (in the workspace's queue); the watch then sees the base move. */
  async land(ref: string): Promise<LandResult> {
    const t = await sessionTarget(this.d, ref);
    const r = await this.d.runtime.run(t.ws.id, () => this.git.land(t.ws, t.session.branch));
    void this.check(t.ws.id, 'all');
    return { sessionId: t.session.id, base: r.base, how: r.how, head: r.head };
  }

  idle(): Promise<void> {
    return this.queue.idle();
  }
}

/** A pair seen from its other side: a session pair is kept with its branches in order, each hunk's sides follow. */
const swapped = (r: PairResult): PairResult =>
  r.state === 'conflict'
    ? {
        a: r.b,
        b: r.a,
        state: 'conflict',
        files: r.files.map((f) => ({ path: f.path, hunks: f.hunks.map((h) => ({ ours: h.theirs, theirs: h.ours })) })),
      }
    : { ...r, a: r.b, b: r.a };

const key = (a: string, b: string, base = false): string => (base || a < b ? `${a}\0${b}` : `${b}\0${a}`);
