import type { ChangesSummary, PushResult, Session, SessionChanges } from '../../../shared/contract/sessions';
import { NexusError } from '../../../shared/errors';
import type { Disposable } from '../disposable';
import type { EventBus } from '../events';
import type { Logger } from '../log';
import type { Redactor } from '../redact';
import type { SecretSource } from '../workspaces';
import { type SessionsConfig, type SessionSignalMap, sessionPaths } from '../sessions';
import { ShipReader } from './ship-diff';
import { ShipGit, type ShipExec, type ShipTarget } from './ship-git';
import { ShipPusher, type PushExec } from './ship-push';

export interface ShipWorkspace extends ShipTarget {
  id: string;
  running: boolean;
}

export interface SessionShipDeps {
  /** The sessions module: a session by reference, and its `agentStopped` signal. */
  sessions: {
    get(ref: string): Promise<Session>;
    on(name: 'agentStopped', listener: (e: SessionSignalMap['agentStopped']) => void): Disposable;
  };
  /** The workspace runtime: its one exec, its per-workspace queue, its store reads. */
  runtime: {
    exec: ShipExec['exec'] & PushExec['exec'];
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

/** Ship: a session's changes (read), its push (vault), looked at again whenever its agent stops. */
export class SessionShip {
  private readonly reader: ShipReader;
  private readonly pusher: ShipPusher;
  /** Refreshes running or asked for again while running (one more after the current one). */
  private readonly refreshing = new Map<string, boolean>();
  /** Told of each push that went through (the tracker comments the link on the session's issue). */
  private readonly pushedListeners = new Set<(r: PushResult & { taskId: string | null }) => void>();

  constructor(private readonly deps: SessionShipDeps) {
    const git = new ShipGit(deps.runtime, deps.config.repoDir);
    this.reader = new ShipReader(git);
    this.pusher = new ShipPusher({
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
    for (const l of this.pushedListeners) {
      try {
        l({ ...result, taskId: t.session.taskId });
      } catch (e) {
        this.deps.log.warn('a push listener failed', { error: e });
      }
    }
    return result;
  }

  onPushed(listener: (r: PushResult & { taskId: string | null }) => void): Disposable {
    this.pushedListeners.add(listener);
    return { dispose: () => void this.pushedListeners.delete(listener) };
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

  /** Refreshes a session's changes when its agent stops (the sessions module's signal): pushed, no polling. */
  followStops(): Disposable {
    return this.deps.sessions.on('agentStopped', ({ sessionId }) => void this.refresh(sessionId));
  }
}
