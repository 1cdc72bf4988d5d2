import type { ChangesSummary, PushResult, Session, SessionChanges } from '../../../shared/contract/sessions';
import { NexusError } from '../../../shared/errors';
import type { Disposable } from '../disposable';
import type { EventBus } from '../events';
import type { Logger } from '../log';
import type { Redactor } from '../redact';
import type { SecretSource } from '../workspaces/secret-source';
import type { SessionsConfig } from '../sessions/config';
import { HookMessage } from '../sessions/hooks/hook-events';
import { SessionChangesReader } from './ship-diff';
import { ChangesGit, type ChangesExec, type ChangesTarget } from './ship-git';
import { SessionPusher, type PushExec } from './ship-push';
import { SessionBranches } from '../sessions/session-branches';
import { sessionPaths } from '../sessions/session-paths';

export interface ShipWorkspace extends ChangesTarget {
  id: string;
  running: boolean;
}

export interface SessionShipDeps {
  sessions: { get(ref: string): Promise<Session> };
  /** The workspace runtime: its one exec, its per-workspace queue, its store reads. */
  runtime: {
    exec: ChangesExec['exec'] & PushExec['exec'];
    run<T>(workspaceId: string, job: () => Promise<T>): Promise<T>;
    info(ref: string): ShipWorkspace;
  };
  /** The workspace's remote and vault secret. */
  remoteOf(
    workspaceId: string,
  ): { repoUrl: string; secretId: string | null } | null | Promise<{ repoUrl: string; secretId: string | null } | null>;
  secrets: SecretSource;
  redactor: Redactor;
  events: EventBus;
  log: Logger;
  config: SessionsConfig;
}

/** Review and ship: a session's changes (read), its push (vault), refreshed on its Stop hook. */
export class SessionShip {
  private readonly reader: SessionChangesReader;
  private readonly pusher: SessionPusher;
  readonly branches: SessionBranches;
  /** Refreshes running or asked for again while running (one more after the current one). */
  private readonly refreshing = new Map<string, boolean>();

  constructor(private readonly deps: SessionShipDeps) {
    const git = new ChangesGit(deps.runtime, deps.config.repoDir);
    this.reader = new SessionChangesReader(git);
    this.branches = new SessionBranches(deps.runtime, deps.config.repoDir);
    this.pusher = new SessionPusher({
      exec: deps.runtime,
      secrets: deps.secrets,
      redactor: deps.redactor,
      repoDir: deps.config.repoDir,
    });
  }

  private async target(ref: string) {
    const s = await this.deps.sessions.get(ref);
    const ws = this.deps.runtime.info(s.workspaceId);
    if (!ws.running || !ws.containerId)
      throw new NexusError(
        'conflict',
        `Workspace ${ws.name} is not running; start it to see or push session ${s.name}.`,
      );
    if (s.status === 'creating') throw new NexusError('conflict', `Session ${s.name} is still being created.`);
    const worktree = sessionPaths(this.deps.config, s.id, s.name).worktree;
    return { session: s, ws, change: { id: s.id, branch: s.branch, worktree, workspace: ws } };
  }

  async summary(ref: string): Promise<ChangesSummary> {
    const t = await this.target(ref);
    return this.reader.summary(t.change);
  }

  async diff(ref: string, page: { offset?: number; limit?: number; file?: string }): Promise<SessionChanges> {
    const t = await this.target(ref);
    return this.reader.diff(t.change, page);
  }

  /** Pushes in the workspace's queue (never beside a worktree add or remove), with progress events. */
  async push(ref: string): Promise<PushResult> {
    const t = await this.target(ref);
    const remote = await this.deps.remoteOf(t.ws.id);
    if (!remote) throw new NexusError('not_found', `No workspace ${t.ws.name}.`);
    const result = await this.deps.runtime.run(t.ws.id, () =>
      this.pusher.push(
        {
          sessionId: t.session.id,
          branch: t.session.branch,
          worktree: t.change.worktree,
          workspace: { ...t.ws, ...remote },
        },
        (p) => this.deps.events.emit('sessions.pushProgress', { sessionId: t.session.id, ...p }),
      ),
    );
    void this.refresh(t.session.id);
    return result;
  }

  /** Looks at the session's changes again and tells the UI (`sessions.diffChanged`); errors are logged only. */
  async refresh(sessionId: string): Promise<void> {
    if (this.refreshing.has(sessionId)) {
      this.refreshing.set(sessionId, true);
      return;
    }
    this.refreshing.set(sessionId, false);
    try {
      do {
        this.refreshing.set(sessionId, false);
        const summary = await this.summary(sessionId);
        this.deps.events.emit('sessions.diffChanged', { sessionId, summary });
      } while (this.refreshing.get(sessionId));
    } catch (e) {
      this.deps.log.debug('session changes refresh failed', { sessionId, error: e });
    } finally {
      this.refreshing.delete(sessionId);
    }
  }

  /** Refreshes a session's changes when its agent stops (the Stop hook): pushed, no polling. */
  followStops(source: {
    onHookEvent(handler: (e: { workspaceId: string; event: unknown }) => void): Disposable;
  }): Disposable {
    return source.onHookEvent(({ workspaceId, event }) => {
      const m = HookMessage.safeParse(event);
      if (!m.success || m.data.workspaceId !== workspaceId) return;
      if (m.data.event.hook_event_name !== 'Stop' && m.data.event.hook_event_name !== 'SessionEnd') return;
      void this.deps.sessions.get(m.data.sessionId).then(
        (s) => (s.workspaceId === workspaceId ? this.refresh(s.id) : undefined),
        () => undefined,
      );
    });
  }

  /** The workspace volume's size and each session worktree's. */
  async disk(
    ref: string,
  ): Promise<{ workspaceId: string; bytes: number; worktrees: { name: string; bytes: number }[]; at: string }> {
    const ws = this.deps.runtime.info(ref);
    if (!ws.running || !ws.containerId)
      throw new NexusError('conflict', `Workspace ${ws.name} is not running; start it to measure its disk use.`);
    const d = await this.branches.disk(ws, this.deps.config.repoDir, this.deps.config.worktreesDir);
    return { workspaceId: ws.id, ...d, at: new Date().toISOString() };
  }

  /** Prunes stale worktree records when a workspace starts (in its queue, before any session work). */
  followStarts(signals: {
    on(name: 'started', handler: (e: { workspaceId: string }) => void): Disposable;
  }): Disposable {
    return signals.on('started', ({ workspaceId }) => {
      void this.deps.runtime
        .run(workspaceId, () => this.branches.prune(this.deps.runtime.info(workspaceId)))
        .catch((e: unknown) => this.deps.log.warn('worktree prune on start failed', { workspaceId, error: e }));
    });
  }

  /** Pending refreshes (tests, dispose). */
  get busy(): number {
    return this.refreshing.size;
  }
}
