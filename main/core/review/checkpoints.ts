import type { Checkpoint, CheckpointDiff, CheckpointKind, RestoreResult } from '../../../shared/contract/checkpoints';
import type { EventPayload } from '../../../shared/contract';
import { NexusError } from '../../../shared/errors';
import { DisposableStore, type Disposable } from '../disposable';
import { DIFF_BOUNDS, boundPatches, changedFiles, splitPatch } from '../ship';
import type { Db } from '../store';
import { CheckpointGit, checkpointRef } from './checkpoint-git';
import { CheckpointStore } from './checkpoint-store';
import { KeyedQueue, sessionTarget, type ReviewDeps } from './review-deps';

/** The message the agent's next request carries after a restore. */
export const restoreNotice = (to: Checkpoint, saved: Checkpoint): string =>
  `Note from Nexus: the operator restored this worktree's files to checkpoint ${to.seq}` +
  `${to.turn ? ` (the end of your turn ${to.turn})` : ''}. Files you changed since then are back as they were ` +
  `at that point; the git index and the branch were not changed. The state just before the restore is kept ` +
  `as checkpoint ${saved.seq}, so nothing was lost. Look at the files again before you go on.`;

/**
 * A checkpoint per turn: at each turn end of a session's agent (the sessions module's `turnEnded`),
 * the worktree's whole state goes to `refs/nexus/checkpoints/<session>/<n>`. The session view lists
 * them with what each changed; a restore checkpoints the current state first, writes the files back
 * and tells the agent. A session's checkpoints go with it.
 */
export class Checkpoints {
  private readonly store: CheckpointStore;
  private readonly git: CheckpointGit;
  /** One session's checkpoints and restores one after another (their numbers and parents chain). */
  private readonly queue = new KeyedQueue();

  constructor(
    private readonly d: ReviewDeps,
    db: Db,
  ) {
    this.store = new CheckpointStore(db);
    this.git = new CheckpointGit(d.runtime, d.config.repoDir, d.relayCheckpoint);
  }

  /** Checkpoints every turn end; drops a deleted session's refs and rows. */
  follow(): Disposable {
    const subs = new DisposableStore();
    subs.add(
      this.d.sessions.on('turnEnded', ({ sessionId }) => {
        this.take(sessionId, 'turn').catch((e: unknown) =>
          this.d.log.warn('checkpoint at turn end failed', { sessionId, error: e }),
        );
      }),
    );
    subs.add(
      this.d.events.subscribe((e) => {
        const removed =
          e.name === 'sessions.changed' ? (e.payload as EventPayload<'sessions.changed'>).removedId : null;
        if (removed) void this.forget(removed);
      }),
    );
    return subs;
  }

  /** Takes a checkpoint of the session's worktree now (in its queue). */
  take(ref: string, kind: CheckpointKind, restoredTo: number | null = null): Promise<Checkpoint> {
    return this.d.sessions.get(ref).then((s) => this.queue.run(s.id, () => this.takeNow(s.id, kind, restoredTo)));
  }

  private async takeNow(sessionId: string, kind: CheckpointKind, restoredTo: number | null): Promise<Checkpoint> {
    const t = await sessionTarget(this.d, sessionId);
    const last = this.store.last(sessionId);
    const seq = (last.checkpoint?.seq ?? 0) + 1;
    const turn = kind === 'turn' ? last.turn + 1 : null;
    const what = turn ? `turn ${turn}` : `before restoring checkpoint ${restoredTo}`;
    const { taken, via } = await this.git.take(
      t.ws,
      t.worktree,
      checkpointRef(sessionId, seq),
      `nexus checkpoint ${seq} of session ${t.session.name}: ${what}`,
      this.parentAfter(last.checkpoint),
    );
    this.d.log.debug('checkpoint taken', { sessionId, seq, via });
    const checkpoint: Checkpoint = { sessionId, seq, kind, turn, restoredTo, ...taken, at: new Date().toISOString() };
    this.store.insert(t.ws.id, checkpoint);
    this.d.events.emit('checkpoints.changed', { sessionId, checkpoint });
    return checkpoint;
  }

  /**
   * What the next checkpoint is compared with: the last one, or after a restore the checkpoint restored
   * to (the files the agent then starts from); none for the first (the branch's fork point then).
   */
  private parentAfter(last: Checkpoint | null): string | null {
    if (last?.kind === 'before_restore' && last.restoredTo !== null)
      return this.store.get(last.sessionId, last.restoredTo)?.commit ?? last.commit;
    return last?.commit ?? null;
  }

  /** How many turns of the session's agent have ended (one checkpoint each). */
  turns(sessionId: string): number {
    return this.store.last(sessionId).turn;
  }

  async list(ref: string): Promise<{ sessionId: string; checkpoints: Checkpoint[] }> {
    const s = await this.d.sessions.get(ref);
    return { sessionId: s.id, checkpoints: this.store.list(s.id) };
  }

  private async checkpointOf(ref: string, seq: number) {
    const t = await sessionTarget(this.d, ref);
    const c = this.store.get(t.session.id, seq);
    if (!c) throw new NexusError('not_found', `Session ${t.session.name} has no checkpoint ${seq}.`);
    return { ...t, checkpoint: c };
  }

  /** What one checkpoint changed against the one before it, bounded like the session's diff. */
  async diff(ref: string, seq: number, file?: string): Promise<CheckpointDiff> {
    const { ws, checkpoint: c } = await this.checkpointOf(ref, seq);
    const perFile = file ? DIFF_BOUNDS.wholeFile : DIFF_BOUNDS.perFile;
    const out = await this.git.diff(ws, c.parent, c.commit, perFile, file ? [file] : []);
    const all = changedFiles(out.numstat, out.names);
    const files = file ? all.filter((f) => f.path === file) : all.slice(0, DIFF_BOUNDS.pageSize);
    const wanted = new Set(files.map((f) => f.path));
    const sections = splitPatch(out.patch).filter((p) => wanted.has(p.path));
    const cut = new Set(sections.filter((p) => p.diff.includes(out.cutLine)).map((p) => p.path));
    const bounded = boundPatches(
      sections.map((p) => ({ path: p.path, diff: p.diff.replace(out.cutLine, '') })),
      { perFile, total: file ? DIFF_BOUNDS.wholeFile : DIFF_BOUNDS.total },
    );
    const notes: string[] = [];
    if (file && files.length === 0) notes.push(`${file} did not change in checkpoint ${seq}.`);
    if (all.length > files.length && !file)
      notes.push(`${all.length - files.length} more files changed; open one by name to see its diff.`);
    if (cut.size > 0 || bounded.omitted.length > 0)
      notes.push('Some diffs are cut at their size bound; open a file to see it whole.');
    return {
      sessionId: c.sessionId,
      seq,
      files,
      patches: bounded.patches.map((p) => (cut.has(p.path) ? { ...p, truncated: true } : p)),
      note: notes.length > 0 ? notes.join(' ') : null,
    };
  }

  /** Checkpoints the current state, writes checkpoint `seq`'s files back, then tells the agent. */
  async restore(ref: string, seq: number): Promise<RestoreResult> {
    const { session, ws, worktree, checkpoint: to } = await this.checkpointOf(ref, seq);
    const saved = await this.queue.run(session.id, async () => {
      const before = await this.takeNow(session.id, 'before_restore', seq);
      await this.git.restore(ws, worktree, to.commit, before.commit);
      return before;
    });
    let message: RestoreResult['message'] = null;
    let note = `The files are those of checkpoint ${seq}; the state before is checkpoint ${saved.seq}.`;
    try {
      const sent = await this.d.sessions.sendMessage(session.id, restoreNotice(to, saved));
      message = sent.status;
      note += ` The agent was told: ${sent.note}`;
    } catch (e) {
      note += ` The agent could not be told (${e instanceof Error ? e.message : String(e)}).`;
    }
    return { sessionId: session.id, restoredTo: seq, saved, message, note };
  }

  /** Drops a gone session's refs from its clone (when its workspace runs), then its rows. */
  private async forget(sessionId: string): Promise<void> {
    const workspaceId = this.store.workspaceOf(sessionId);
    if (!workspaceId) return;
    await this.queue.run(sessionId, async () => {
      const ws = this.d.runtime.find(workspaceId);
      if (ws?.running && ws.containerId)
        await this.git
          .remove(ws, sessionId)
          .catch((e: unknown) => this.d.log.warn('removing checkpoint refs failed', { sessionId, error: e }));
      this.store.deleteSession(sessionId);
    });
  }

  idle(): Promise<void> {
    return this.queue.idle();
  }
}
