import { randomUUID } from 'node:crypto';
import type { Session } from '../../../shared/contract/sessions';
import { NexusError } from '../../../shared/errors';
import type { EventBus } from '../events';
import type { Logger } from '../log';
import type { Db } from '../store/open';
import type { SessionsConfig } from './config';
import { agentStateFromHook, type HookMessage } from './hook-events';
import { buildLaunchCommand } from './launch';
import { SessionMachinery, sessionPaths, type HookTarget, type WorkerTools } from './session-machinery';
import { SessionRepo, type SessionRow } from './session-repo';
import { mcpConfigJson, runFiles, SessionRuns, type PlatformRuns } from './session-runs';
import type { LiveWindow } from './terminal';
import { WorkspaceQueue } from './workspace-queue';
import type { ContainerExec, WorkspaceDirectory, WorkspaceInfo } from './workspace-runtime';

export interface SessionServiceDeps {
  db: Db;
  events: EventBus;
  log: Logger;
  config: SessionsConfig;
  workspaces: WorkspaceDirectory;
  exec: ContainerExec;
  tools: WorkerTools;
  /** Publish-only NATS credentials for the workspace's hook subject; null when there is no NATS. */
  hookTarget(workspaceId: string): HookTarget | null | Promise<HookTarget | null>;
  maxSessionsPerWorkspace: number;
  /** core.platform: each session's agent gets its own platform run (absent: sessions run without platform tools). */
  platform?: PlatformRuns;
}

interface PendingCreate {
  ws: WorkspaceInfo;
  row: SessionRow;
  initialMessage: string | undefined;
  onDone: ((s: Session) => void) | undefined;
}

export interface ConvergeReport {
  alive: string[];
  relaunched: string[];
  exited: string[];
  interrupted: string[];
}

/**
 * Sessions: create (row first, slow work in the workspace's serial queue), delete, send a message
 * through the inbox, read the pane, apply hook events, and converge after a restart.
 */
export class SessionService {
  private readonly repo: SessionRepo;
  private readonly machinery: SessionMachinery;
  private readonly runs: SessionRuns | null;
  private readonly queue = new WorkspaceQueue();
  /** Containers whose worker tools are installed (by container id: a new container needs them again). */
  private readonly toolsInstalled = new Set<string>();
  /** Sessions whose create is queued or running in this process. */
  private readonly inFlight = new Set<string>();
  /** Creates waiting for the workspace's queue, launched together. */
  private readonly waiting = new Map<string, PendingCreate[]>();
  /** Change events leave in the order the changes happened. */
  private emitted: Promise<void> = Promise.resolve();

  constructor(private readonly deps: SessionServiceDeps) {
    this.repo = new SessionRepo(deps.db);
    this.machinery = new SessionMachinery(deps.exec, deps.config);
    this.runs = deps.platform ? new SessionRuns(deps.platform, deps.log) : null;
  }

  async list(workspaceRef?: string): Promise<Session[]> {
    const ws = workspaceRef ? await this.deps.workspaces.resolve(workspaceRef) : null;
    // One look at the workspaces for the whole list, not one per session (each look asks the engine).
    const names = new Map((ws ? [ws] : await this.deps.workspaces.list()).map((w) => [w.id, w.name]));
    return this.repo.list(ws?.id).map((r) => this.toSessionSync(r, names.get(r.workspace_id) ?? null));
  }

  async get(ref: string): Promise<Session> {
    return this.toSession(await this.resolve(ref));
  }

  /** Inserts the row as `creating` and returns; worktree, window and launch follow in the queue. */
  async create(
    input: { workspace: string; name: string; initialMessage?: string | undefined },
    onDone?: (s: Session) => void,
  ): Promise<Session> {
    const ws = await this.deps.workspaces.resolve(input.workspace);
    if (!ws.running || !ws.containerId)
      throw new NexusError('conflict', `Workspace ${ws.name} is not running; start it first.`);
    if (this.repo.byName(ws.id, input.name))
      throw new NexusError('conflict', `Workspace ${ws.name} already has a session named ${input.name}.`);
    if (this.repo.count(ws.id) >= this.deps.maxSessionsPerWorkspace) {
      throw new NexusError(
        'conflict',
        `Workspace ${ws.name} already has ${this.deps.maxSessionsPerWorkspace} sessions, the most allowed.`,
      );
    }
    const now = new Date().toISOString();
    const row: SessionRow = {
      id: randomUUID(),
      workspace_id: ws.id,
      name: input.name,
      branch: `nexus/${input.name}`,
      status: 'creating',
      reason: null,
      agent_state: 'starting',
      agent_state_at: null,
      agent_message: null,
      agent_session_id: randomUUID(),
      window_id: null,
      run_id: null,
      created_at: now,
      updated_at: now,
    };
    // Checked before the row exists, so a bad prompt or agent config fails the call, not the queue.
    buildLaunchCommand(this.deps.config, this.launchInput(ws, row, input.initialMessage, false));
    this.repo.insert(row);
    const session = await this.toSession(row);
    this.emitted = this.emitted.then(() => this.emit(session));
    this.inFlight.add(row.id);
    // Creates that arrive while the queue is busy are launched together, in one docker exec.
    let waiting = this.waiting.get(ws.id);
    if (!waiting) {
      const list: PendingCreate[] = [];
      waiting = list;
      this.waiting.set(ws.id, list);
      void this.queue.run(ws.id, () => this.bringUp(ws.id, list)).catch(() => undefined);
    }
    waiting.push({ ws, row, initialMessage: input.initialMessage, onDone });
    return session;
  }

  private async bringUp(workspaceId: string, list: PendingCreate[]): Promise<void> {
    if (this.waiting.get(workspaceId) === list) this.waiting.delete(workspaceId);
    const live = list.filter((c) => this.repo.get(c.row.id));
    const fail = (c: PendingCreate, reason: string): void => {
      this.deps.log.warn('session create failed', { sessionId: c.row.id, reason });
      if (this.repo.get(c.row.id)) this.patch(c.row.id, { status: 'error', reason });
    };
    try {
      const first = live[0];
      if (!first) return;
      const containerId = first.ws.containerId as string;
      await this.ensureTools(workspaceId, containerId);
      const ready: { c: PendingCreate; mcpConfig: string | undefined }[] = [];
      for (const c of live) {
        try {
          ready.push({ c, mcpConfig: await this.startRun(containerId, workspaceId, c.row) });
        } catch (e) {
          fail(c, `Platform tools could not be set up: ${e instanceof Error ? e.message : String(e)}`);
        }
      }
      const items = ready.map(({ c, mcpConfig }) => ({
        name: c.row.name,
        paths: sessionPaths(this.deps.config, c.row.id, c.row.name),
        cmd: buildLaunchCommand(this.deps.config, {
          ...this.launchInput(c.ws, c.row, c.initialMessage, false),
          mcpConfig,
        }),
        addWorktree: true,
      }));
      const results = items.length > 0 ? await this.machinery.launchMany(containerId, items) : [];
      ready.forEach(({ c }, i) => {
        const r = results[i];
        if (r && 'windowId' in r) this.patch(c.row.id, { status: 'running', reason: null, window_id: r.windowId });
        else fail(c, r?.error ?? 'no launch result');
      });
    } catch (e) {
      for (const c of live) fail(c, e instanceof Error ? e.message : String(e));
    } finally {
      for (const c of list) {
        this.inFlight.delete(c.row.id);
        if (c.onDone && this.repo.get(c.row.id)) {
          const done = c.onDone;
          void this.get(c.row.id).then(done, () => undefined);
        }
      }
    }
  }

  private launchInput(ws: WorkspaceInfo, row: SessionRow, initialMessage: string | undefined, resume: boolean) {
    return {
      workspace: ws.name,
      workspaceId: ws.id,
      name: row.name,
      sessionId: row.id,
      agentSessionId: row.agent_session_id,
      initialMessage,
      resume,
    };
  }

  /**
   * Gives the session a fresh platform run (ending the one it had) and writes the run's password
   * file and MCP config into its state dir. Returns the config's path, or undefined without NATS.
   */
  private async startRun(containerId: string, workspaceId: string, row: SessionRow): Promise<string | undefined> {
    if (!this.runs) return undefined;
    if (row.run_id)
      await this.runs.end(row.run_id, 'cancelled', 'Replaced by a new run when the session was relaunched.');
    const creds = await this.runs.start(workspaceId, row.id);
    this.repo.update(row.id, { run_id: creds?.runId ?? null });
    if (!creds) return undefined;
    const p = sessionPaths(this.deps.config, row.id, row.name);
    const files = runFiles(p.stateDir);
    await this.machinery.writeRunFiles(
      containerId,
      p.stateDir,
      files,
      creds.password,
      mcpConfigJson(creds, files, this.deps.config.nexusMcpCommand),
    );
    return files.mcpConfig;
  }

  /** Ends the session's current run (read now: a create still in the queue may have just started it). */
  private async endRunOf(sessionId: string, status: 'finished' | 'cancelled', summary: string): Promise<void> {
    const runId = this.repo.get(sessionId)?.run_id;
    if (runId) await this.runs?.end(runId, status, summary);
  }

  /** Ends runs whose session is gone (a deleted workspace takes its sessions with it). */
  async endOrphanRuns(): Promise<number> {
    if (!this.runs) return 0;
    const ids = this.repo.orphanRunIds();
    for (const id of ids) await this.runs.end(id, 'cancelled', 'Its session was removed.');
    return ids.length;
  }

  private async ensureTools(workspaceId: string, containerId: string): Promise<void> {
    if (this.toolsInstalled.has(containerId)) return;
    await this.machinery.installTools(containerId, this.deps.tools, await this.deps.hookTarget(workspaceId));
    this.toolsInstalled.add(containerId);
  }

  /** Ends the window, removes only this session's worktree, branch and state, deletes the row. */
  async delete(ref: string): Promise<{ deleted: true; id: string }> {
    const row = await this.resolve(ref);
    const ws = await this.deps.workspaces.get(row.workspace_id);
    if (ws?.running && ws.containerId) {
      const containerId = ws.containerId;
      await this.queue.run(ws.id, async () => {
        const windowId = (await this.machinery.windows(containerId)).get(row.name) ?? row.window_id;
        if (windowId) await this.machinery.killWindow(containerId, windowId);
        const p = sessionPaths(this.deps.config, row.id, row.name);
        await this.machinery.removeWorktree(containerId, p);
        await this.endRunOf(row.id, 'finished', 'The session was deleted.');
        await this.machinery.removeState(containerId, p);
      });
    } else await this.endRunOf(row.id, 'finished', 'The session was deleted.');
    this.repo.delete(row.id);
    this.deps.events.emit('sessions.changed', { session: null, removedId: row.id });
    return { deleted: true, id: row.id };
  }

  /** Delivers text through the session's inbox socket (never typed into the terminal). */
  async sendMessage(ref: string, text: string): Promise<{ delivered: true; sessionId: string }> {
    const row = await this.resolve(ref);
    const ws = await this.deps.workspaces.get(row.workspace_id);
    if (row.status !== 'running' || !ws?.running || !ws.containerId)
      throw new NexusError('conflict', `Session ${row.name} is not running.`);
    const report = await this.machinery.sendToInbox(ws.containerId, row.id, text);
    const detail = report.detail ? `: ${report.detail}` : '';
    switch (report.outcome) {
      case 'delivered':
      case 'sent':
        return { delivered: true, sessionId: row.id };
      case 'held':
        throw new NexusError(
          'conflict',
          `The agent held the message for approval (it runs without permission prompts)${detail}.`,
        );
      case 'refused':
      case 'denied':
      case 'auth_refused':
        throw new NexusError('forbidden', `The session's inbox refused the message (auth refused)${detail}.`);
      case 'dropped':
      case 'expired':
        throw new NexusError('conflict', `The agent dropped the message (${report.outcome})${detail}.`);
      case 'socket_missing':
        throw new NexusError('unavailable', `The session's inbox socket is missing${detail}.`);
      case 'timeout':
        throw new NexusError('timeout', `The session's inbox did not take the message in time${detail}.`);
      case 'bad_input':
        throw new NexusError('bad_request', `The message cannot be sent${detail}.`);
    }
  }

  async pane(ref: string): Promise<{ sessionId: string; text: string; capturedAt: string }> {
    const w = await this.liveWindow(ref);
    const text = await this.machinery.capturePane(w.containerId, w.windowId);
    return { sessionId: w.sessionId, text, capturedAt: new Date().toISOString() };
  }

  /** The session's live tmux window in its running workspace (the pane, the terminal). */
  async liveWindow(ref: string): Promise<LiveWindow> {
    const row = await this.resolve(ref);
    const ws = await this.deps.workspaces.get(row.workspace_id);
    if (!ws?.running || !ws.containerId)
      throw new NexusError('conflict', `The workspace of session ${row.name} is not running.`);
    const windowId = (await this.machinery.windows(ws.containerId)).get(row.name);
    if (!windowId) throw new NexusError('not_found', `Session ${row.name} has no live window.`);
    return { sessionId: row.id, name: row.name, containerId: ws.containerId, windowId };
  }

  /**
   * A hook event from nexus.hooks.<subjectWorkspaceId>. Identity comes from the subject (the NATS
   * user may publish only there), so an event naming another workspace's session is ignored; so is
   * one older than the state it would replace (hooks run concurrently and may arrive out of order).
   */
  applyHook(subjectWorkspaceId: string, msg: HookMessage): Session | null {
    const row = this.repo.get(msg.sessionId);
    if (!row || row.workspace_id !== subjectWorkspaceId || msg.workspaceId !== subjectWorkspaceId) return null;
    if (row.agent_state_at && msg.at < row.agent_state_at) return null;
    const change = agentStateFromHook(msg.event);
    if (!change) return null;
    return this.patch(row.id, {
      agent_state: change.agentState,
      agent_state_at: msg.at,
      agent_message: change.message,
    });
  }

  /**
   * After a restart (and when a workspace starts): a running session whose window is alive is left
   * alone; one whose window is gone is relaunched with --resume when its worktree is still there,
   * else marked exited; a create interrupted by the restart is marked error. Runs in the workspace
   * queue, so it never races a create, and nothing alive is launched twice.
   */
  async converge(workspaceId?: string): Promise<ConvergeReport> {
    const report: ConvergeReport = { alive: [], relaunched: [], exited: [], interrupted: [] };
    await this.endOrphanRuns().catch((e: unknown) =>
      this.deps.log.warn('ending orphaned session runs failed', { error: e }),
    );
    const workspaces = workspaceId ? [await this.deps.workspaces.get(workspaceId)] : await this.deps.workspaces.list();
    for (const ws of workspaces) {
      if (!ws?.running || !ws.containerId) continue;
      const containerId = ws.containerId;
      // A restarted container lost its /tmp (tools, inbox addresses): install again before any relaunch.
      this.toolsInstalled.delete(containerId);
      await this.queue.run(ws.id, async () => {
        const windows = await this.machinery.windows(containerId);
        for (const row of this.repo.list(ws.id)) {
          if (this.inFlight.has(row.id)) continue;
          const windowId = windows.get(row.name);
          if (row.status === 'creating') {
            this.patch(row.id, {
              status: 'error',
              reason: 'Creation was interrupted by a restart; delete the session and create it again.',
            });
            report.interrupted.push(row.id);
          } else if (row.status !== 'running') continue;
          else if (windowId) {
            if (windowId !== row.window_id) this.patch(row.id, { window_id: windowId });
            report.alive.push(row.id);
          } else if (
            await this.machinery.worktreeExists(containerId, sessionPaths(this.deps.config, row.id, row.name))
          ) {
            await this.ensureTools(ws.id, containerId);
            const p = sessionPaths(this.deps.config, row.id, row.name);
            const mcpConfig = await this.startRun(containerId, ws.id, row);
            const cmd = buildLaunchCommand(this.deps.config, {
              ...this.launchInput(ws, row, undefined, true),
              mcpConfig,
            });
            const id = await this.machinery.launch(containerId, row.name, p, cmd, { addWorktree: false });
            this.patch(row.id, {
              window_id: id,
              agent_state: 'starting',
              agent_message: 'Relaunched after a restart (conversation resumed)',
            });
            report.relaunched.push(row.id);
          } else {
            await this.endRunOf(row.id, 'finished', 'The session exited.');
            this.patch(row.id, {
              status: 'exited',
              reason: 'Its window and worktree are gone.',
              agent_state: 'exited',
              window_id: null,
            });
            report.exited.push(row.id);
          }
        }
      });
    }
    return report;
  }

  /** Whether a session of this workspace is being created (the workspaces service refuses delete meanwhile). */
  hasCreatingSessions(workspaceId: string): boolean {
    return this.repo.list(workspaceId).some((r) => r.status === 'creating' && this.inFlight.has(r.id));
  }

  /** Resolves when every queued create, delete and converge has finished. */
  async idle(): Promise<void> {
    await this.queue.idle();
    await this.emitted;
  }

  private async resolve(ref: string): Promise<SessionRow> {
    const byId = this.repo.get(ref);
    if (byId) return byId;
    const slash = ref.indexOf('/');
    if (slash > 0) {
      const ws = await this.deps.workspaces.resolve(ref.slice(0, slash));
      const row = this.repo.byName(ws.id, ref.slice(slash + 1));
      if (row) return row;
    }
    throw new NexusError('not_found', `No session ${ref}.`);
  }

  private patch(id: string, patch: Parameters<SessionRepo['update']>[1]): Session | null {
    const row = this.repo.update(id, patch);
    if (!row) return null;
    this.emitted = this.emitted.then(async () => this.emit(await this.toSession(row))).catch(() => undefined);
    return this.toSessionSync(row, null);
  }

  private emit(session: Session): void {
    this.deps.events.emit('sessions.changed', { session });
  }

  private async toSession(row: SessionRow): Promise<Session> {
    const ws = await this.deps.workspaces.get(row.workspace_id);
    return this.toSessionSync(row, ws?.name ?? null);
  }

  private toSessionSync(row: SessionRow, workspaceName: string | null): Session {
    return {
      id: row.id,
      workspaceId: row.workspace_id,
      workspaceName: workspaceName ?? row.workspace_id,
      name: row.name,
      branch: row.branch,
      status: row.status,
      reason: row.reason,
      agentState: row.agent_state,
      agentStateAt: row.agent_state_at,
      agentMessage: row.agent_message,
      createdAt: row.created_at,
      updatedAt: row.updated_at,
    };
  }
}
