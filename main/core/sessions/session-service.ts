import type { AgentKind, Session } from '../../../shared/contract/sessions';
import { publicWorkspace, WorkspaceStore } from '../workspaces/workspace-store';
import { queueForCodex } from './inbox/codex-queue';
import { errorMessage, NexusError } from '../../../shared/errors';
import type { EventBus } from '../events';
import type { Logger } from '../log';
import type { Db } from '../store/open';
import type { WorkspaceInfo, WorkspaceRuntime } from '../workspaces/runtime';
import type { SessionsConfig } from './config';
import type { Disposable } from '../disposable';
import type { WorkspaceEvents } from '../workspaces/workspace-events';
import { capturePane } from '../terminal/pane';
import type { LiveWindow } from '../terminal/terminal';
import { agentStateFromHook, keepNamedTool, type HookMessage } from './hooks/hook-events';
import { sendToInbox, type MessageRelay } from './inbox/inbox-send';
import { launchMany, waitForLaunches } from './launch/launch-exec';
import type { LaunchPlan } from './launch/launch';
import { SessionLauncher } from './launch/session-launcher';
import { killWindow, listWindows } from './launch/tmux';
import type { HookTarget, WorkerTools } from './launch/worker-tools';
import { convergeSessions, type ConvergeReport, type ConvergeSessions } from './converge/session-converge';
import { sessionPaths } from './session-paths';
import { SessionBranches } from './session-branches';
import { SessionSignals, type SessionSignalMap } from './session-signals';
import { removeSessionState, removeWorktree, worktreeExists } from './worktrees';
import type { ExternalMcpOf } from './launch/external-mcp';
import { SessionRuns, type FleetEntryOf, type PlatformRuns } from './launch/session-runs';
import { newSessionRow, SessionStore, type SessionPatch, type SessionRow } from './session-store';
import { StartupWatch } from './launch/startup-watch';
import { SessionLookup } from './session-lookup';
import { startupFailureReason } from '../agent/startup-watchdog';
import { deliveryOf, type DeliveryResult } from './inbox/message-delivery';
import { checkSessionMemory, holdsMemory, type SessionMemory } from './memory/memory-admission';
import { MemoryKills } from './memory/memory-kills';

/** What sessions use of the workspaces module: its runtime, nothing else. */
export type SessionRuntime = Pick<WorkspaceRuntime, 'run' | 'exec' | 'info' | 'find' | 'list' | 'idle'>;

export interface SessionServiceDeps {
  db: Db;
  events: EventBus;
  log: Logger;
  config: SessionsConfig;
  runtime: SessionRuntime;
  tools: WorkerTools;
  /** Publish-only NATS credentials for the workspace's hook subject; null when there is no NATS. */
  hookTarget(workspaceId: string): HookTarget | null | Promise<HookTarget | null>;
  maxSessionsPerWorkspace: number;
  /** The container's limit and one session's figure: a create the container cannot hold is refused (absent: no check). */
  memory?: SessionMemory | undefined;
  /** core.platform: each session's agent gets its own platform run (absent: sessions run without platform tools). */
  platform?: PlatformRuns;
  /** core.platform: messages go to the workspace's hook relay over NATS (absent: the helper's docker exec). */
  messages?: MessageRelay;
  /** NEXUS_AGENT_BASE_URL (agent.baseUrl): ANTHROPIC_BASE_URL for every session. */
  agentBaseUrl?: string | undefined;
  /** NEXUS_CODEX_BASE_URL (agent.codexBaseUrl): Codex sessions' Responses-API endpoint. */
  codexBaseUrl?: string | undefined;
  /** agent.startupTimeoutMs: a launched agent with no SessionStart by then goes to error (unset: never). */
  startupTimeoutMs?: number | undefined;
  /** core.fleet: the workspace's `nexus-fleet` MCP entry for each launched session. */
  fleet?: FleetEntryOf | undefined;
  /** The workspace agent's external MCP servers for each launched session. */
  external?: ExternalMcpOf | undefined;
}

interface PendingCreate {
  row: SessionRow;
  /** Checked when the create was called; assembled once its run is known. */
  launch: LaunchPlan;
  onDone: ((s: Session) => void) | undefined;
}

export type { ConvergeReport } from './converge/session-converge';

/**
 * Sessions: create (row first, slow work in the workspace's queue), delete, send a message through
 * the inbox, read the pane, apply hook events, converge. Reads and hook events touch only the store.
 */
/** How long a message to a session whose agent is starting waits for its inbox (a start at load takes 10–40 s). */
const STARTING_WAIT_MS = 45_000;

export class SessionService {
  private readonly store: SessionStore;
  /** The workspaces table, for the default agent kind a create without `agent` gets. */
  private readonly workspaces: WorkspaceStore;
  private readonly lookup: SessionLookup;
  private readonly branches: SessionBranches;
  private readonly launcher: SessionLauncher;
  /** Sessions whose create is queued or running in this process. */
  private readonly inFlight = new Set<string>();
  /** Creates waiting for the workspace's queue, launched together. */
  private readonly waiting = new Map<string, PendingCreate[]>();
  private readonly startup: StartupWatch;
  private readonly signals: SessionSignals;
  /** What converge may do (see ConvergeSessions): nothing of this service's state beyond it. */
  private readonly converging: ConvergeSessions;
  /** Finds the sessions whose agent the container's OOM killer took (memory-kills.ts). */
  private readonly memoryKills: MemoryKills;

  constructor(private readonly deps: SessionServiceDeps) {
    this.store = new SessionStore(deps.db);
    this.workspaces = new WorkspaceStore(deps.db);
    this.lookup = new SessionLookup(this.store, deps.runtime);
    this.branches = new SessionBranches(deps.runtime, deps.config.repoDir);
    this.signals = new SessionSignals(deps.log);
    this.launcher = new SessionLauncher({
      store: this.store,
      runtime: deps.runtime,
      config: deps.config,
      tools: deps.tools,
      hookTarget: (id) => deps.hookTarget(id),
      runs: deps.platform ? new SessionRuns(deps.platform, deps.log) : null,
      agentBaseUrl: deps.agentBaseUrl,
      codexBaseUrl: deps.codexBaseUrl,
      fleet: deps.fleet,
      external: deps.external,
      log: deps.log,
    });
    this.startup = new StartupWatch(deps.startupTimeoutMs, (id, at, ms) => this.startupTimedOut(id, at, ms), deps.log);
    this.converging = this.convergePort();
    this.memoryKills = new MemoryKills({
      runtime: deps.runtime,
      running: (workspaceId) =>
        this.store.list(workspaceId).filter((r) => r.status === 'running' && !this.inFlight.has(r.id)),
      liveWindows: (ws) => listWindows(deps.runtime, deps.config, ws),
      killed: (row, reason) => this.killedForMemory(row, reason),
      log: deps.log,
    });
  }

  /** Core-internal signals of the sessions module (`agentStopped`). */
  on<K extends keyof SessionSignalMap>(name: K, listener: (e: SessionSignalMap[K]) => void): Disposable {
    return this.signals.on(name, listener);
  }

  async list(workspaceRef?: string): Promise<Session[]> {
    const ws = workspaceRef ? this.deps.runtime.info(workspaceRef) : null;
    const names = new Map((ws ? [ws] : this.deps.runtime.list()).map((w) => [w.id, w.name]));
    return this.store.list(ws?.id).map((r) => this.toSession(r, names.get(r.workspace_id)));
  }

  /** Whether session `id` exists and belongs to workspace `workspaceId`. */
  inWorkspace(id: string, workspaceId: string): boolean {
    return this.lookup.inWorkspace(id, workspaceId);
  }

  /** The agent kind of a session (Claude Code when there is no such session: nothing then reads it). */
  agentOf(id: string): AgentKind {
    return this.store.get(id)?.agent ?? 'claude';
  }

  async get(ref: string): Promise<Session> {
    return this.toSession(this.resolve(ref));
  }

  /** Inserts the row as `creating` and returns; worktree, window and launch follow in the queue, then `onDone`. */
  async create(
    input: {
      /** A name or id, or the workspace the caller already resolved (the fleet scope hands it on). */
      workspace: string | WorkspaceInfo;
      name: string;
      initialMessage?: string | undefined;
      taskId?: string | undefined;
      /** The agent CLI; default: the workspace's default agent, else Claude Code. */
      agent?: AgentKind | undefined;
    },
    onDone?: (s: Session) => void,
  ): Promise<Session> {
    const ws = typeof input.workspace === 'string' ? this.deps.runtime.info(input.workspace) : input.workspace;
    if (!ws.running) throw new NexusError('conflict', `Workspace ${ws.name} is not running; start it first.`);
    if (this.store.byName(ws.id, input.name))
      throw new NexusError('conflict', `Workspace ${ws.name} already has a session named ${input.name}.`);
    this.checkRoom(ws);
    const row = newSessionRow(ws.id, input.name, input.agent ?? this.workspaces.get(ws.id).defaultAgent);
    // Checked before the row exists, so a bad prompt or agent config fails the call, not the queue.
    const launch = this.launcher.plan(ws, row, { initialMessage: input.initialMessage, resume: false });
    await this.launcher.checkAgentReady(ws, row.agent);
    row.task_id = this.launcher.taskFor(ws.id, input);
    // Again after the await, with nothing between it and the insert: a burst of creates cannot all pass.
    this.checkRoom(ws);
    this.store.insert(row);
    const session = this.toSession(row, ws.name);
    this.emit(session);
    this.inFlight.add(row.id);
    // Creates that arrive while the queue is busy are launched together, in one docker exec.
    let waiting = this.waiting.get(ws.id);
    if (!waiting) {
      const list: PendingCreate[] = [];
      waiting = list;
      this.waiting.set(ws.id, list);
      void this.deps.runtime.run(ws.id, () => this.bringUp(ws.id, list)).catch(() => undefined);
    }
    waiting.push({ row, launch, onDone });
    return session;
  }

  /** The session quota, and the container's memory for one more session (memory-admission.ts). */
  private checkRoom(ws: WorkspaceInfo): void {
    if (this.store.count(ws.id) >= this.deps.maxSessionsPerWorkspace) {
      throw new NexusError(
        'conflict',
        `Workspace ${ws.name} already has ${this.deps.maxSessionsPerWorkspace} sessions, the most allowed.`,
      );
    }
    if (this.deps.memory) {
      const live = this.store.list(ws.id).filter((r) => holdsMemory(r.status)).length;
      checkSessionMemory(ws.name, live, this.deps.memory);
    }
  }

  private async bringUp(workspaceId: string, list: PendingCreate[]): Promise<void> {
    if (this.waiting.get(workspaceId) === list) this.waiting.delete(workspaceId);
    const live = list.filter((c) => this.store.get(c.row.id));
    const fail = (c: PendingCreate, reason: string): void => {
      this.deps.log.warn('session create failed', { sessionId: c.row.id, reason });
      if (this.store.get(c.row.id)) this.patch(c.row.id, { status: 'error', reason });
    };
    try {
      if (live.length === 0) return;
      const ws = this.deps.runtime.find(workspaceId);
      if (!ws?.running) throw new NexusError('conflict', 'The workspace stopped before the session could start.');
      await this.launcher.ensureTools(ws);
      // The runs start together (their NATS users land in one server reload); the launch writes their files.
      const started = await Promise.all(
        live.map((c) =>
          this.launcher.startRun(ws, c.row).then(
            (run) => ({ c, run }),
            (e: unknown) => {
              fail(c, `Platform tools could not be set up: ${errorMessage(e)}`);
              return null;
            },
          ),
        ),
      );
      const ready = started.filter((r) => r !== null);
      const items = ready.map(({ c, run }) => ({
        name: c.row.name,
        paths: sessionPaths(this.deps.config, c.row.id, c.row.name),
        cmd: c.launch.command(run.mcpConfig),
        addWorktree: true,
        runFiles: run.runFiles,
      }));
      const launchedAt = new Date().toISOString();
      const results = items.length > 0 ? await launchMany(this.deps.runtime, this.deps.config, ws, items) : [];
      ready.forEach(({ c }, i) => {
        const r = results[i];
        if (r && 'windowId' in r) {
          this.patch(c.row.id, { status: 'running', reason: null, window_id: r.windowId });
          // Without NATS no hook can report the agent's start: the watchdog would fail a working session.
          if (this.launcher.hooksLive(ws)) this.startup.arm(c.row.id, launchedAt);
        } else fail(c, r?.error ?? 'no launch result');
      });
    } catch (e) {
      for (const c of live) fail(c, errorMessage(e));
    } finally {
      for (const c of list) {
        this.inFlight.delete(c.row.id);
        const row = this.store.get(c.row.id);
        if (c.onDone && row) queueMicrotask(() => c.onDone?.(this.toSession(row)));
      }
    }
  }

  /** Ends runs whose session is gone (a deleted workspace takes its sessions with it). */
  endOrphanRuns(): Promise<number> {
    return this.launcher.endOrphanRuns();
  }

  /**
   * Ends the window, removes only this session's worktree and state, deletes the row. The branch
   * stays unless `deleteBranch`; one with unpushed commits also needs `force` (refused first).
   */
  async delete(
    ref: string,
    opts: { deleteBranch?: boolean | undefined; force?: boolean | undefined } = {},
  ): Promise<{ deleted: true; id: string; branchDeleted?: boolean }> {
    const row = this.resolve(ref);
    const ws = this.deps.runtime.find(row.workspace_id);
    let branchDeleted: boolean | undefined;
    if (opts.deleteBranch && !ws?.running)
      throw new NexusError(
        'conflict',
        `Start workspace ${ws?.name ?? row.workspace_id} to delete branch ${row.branch}.`,
      );
    if (ws?.running) {
      await this.deps.runtime.run(ws.id, async () => {
        if (opts.deleteBranch) await this.branches.checkDelete(ws, row.branch, opts.force === true);
        const windowId = (await listWindows(this.deps.runtime, this.deps.config, ws)).get(row.name) ?? row.window_id;
        if (windowId) await killWindow(this.deps.runtime, ws, windowId);
        const p = sessionPaths(this.deps.config, row.id, row.name);
        await removeWorktree(this.deps.runtime, this.deps.config, ws, p);
        if (opts.deleteBranch) branchDeleted = await this.branches.delete(ws, row.branch);
        await this.launcher.endRunOf(row.id, 'finished', 'The session was deleted.');
        await removeSessionState(this.deps.runtime, ws, p);
      });
    } else await this.launcher.endRunOf(row.id, 'finished', 'The session was deleted.');
    this.store.delete(row.id);
    this.deps.events.emit('sessions.changed', { session: null, removedId: row.id });
    return { deleted: true, id: row.id, ...(branchDeleted !== undefined ? { branchDeleted } : {}) };
  }

  /** The agent a workspace's new sessions run when the create names none. */
  defaultAgent(workspaceRef: string): { workspaceId: string; agent: AgentKind } {
    const ws = this.deps.runtime.info(workspaceRef);
    return { workspaceId: ws.id, agent: this.workspaces.get(ws.id).defaultAgent };
  }

  setDefaultAgent(workspaceRef: string, agent: AgentKind): { workspaceId: string; agent: AgentKind } {
    const ws = this.deps.runtime.info(workspaceRef);
    this.workspaces.setDefaultAgent(ws.id, agent);
    // The workspace shows its default: the UI hears it as a changed workspace.
    this.deps.events.emit('workspaces.changed', { workspace: publicWorkspace(this.workspaces.get(ws.id)) });
    return { workspaceId: ws.id, agent };
  }

  /** Delivers text through the session's inbox socket (never typed into the terminal). */
  async sendMessage(ref: string, text: string): Promise<DeliveryResult & { sessionId: string }> {
    const row = this.resolve(ref);
    const ws = this.deps.runtime.find(row.workspace_id);
    if (row.status !== 'running' || !ws?.running)
      throw new NexusError('conflict', `Session ${row.name} is not running${row.reason ? `: ${row.reason}` : '.'}`);
    if (row.agent === 'codex')
      return { sessionId: row.id, ...(await queueForCodex(this.deps.runtime, this.deps.config, ws, row, text)) };
    const routes = { relay: this.deps.messages, helperScript: this.deps.tools.inboxSendScript };
    const send = () => sendToInbox(this.deps.runtime, this.deps.config, ws, row.id, text, routes);
    const stateAt = row.agent_state_at;
    let report = await send();
    // The container restarted under the session (its /tmp, tools and inbox addresses, came back empty): converge
    // relaunches the agent, so the message waits for that, as for a starting agent, then goes.
    const restarted = report.outcome === 'socket_missing' && report.toolsLost === true;
    if (restarted && (await this.untilRelaunched(row.id, stateAt))) report = await send();
    // No inbox yet because the agent is still starting (a create, a relaunch after a restart): it announces its
    // inbox with SessionStart, so the message waits for that once, as long as a start takes, then goes.
    if (report.outcome === 'socket_missing' && (await this.untilStarted(row.id))) report = await send();
    // No inbox socket: if the OOM killer took the agent, the session is not running (and now says so).
    if (report.outcome === 'socket_missing' && (await this.memoryKills.check(ws.id)).includes(row.id))
      throw new NexusError('conflict', `Session ${row.name} is not running: ${this.store.get(row.id)?.reason}`);
    // No inbox because the agent ended (its SessionEnd came, no start since): that, not "not announced yet".
    const now = this.store.get(row.id);
    if (report.outcome === 'socket_missing' && now?.agent_state === 'exited')
      throw new NexusError(
        'conflict',
        `The agent of session ${row.name} has exited (${now.agent_message ?? 'no reason given'}): ` +
          'restart its workspace to relaunch it, or delete the session.',
      );
    if (report.outcome === 'socket_missing' && restarted)
      throw new NexusError(
        'unavailable',
        `The container of session ${row.name} restarted and its agent did not come back within ` +
          `${STARTING_WAIT_MS / 1000} s (Nexus relaunches it once it sees the workspace running): the message was ` +
          'not delivered; send it again.',
      );
    return { sessionId: row.id, ...deliveryOf(report, row.name) };
  }

  /**
   * Whether the agent of a session whose container restarted came back within STARTING_WAIT_MS: converge marks it
   * `starting` when it relaunches it, its SessionStart moves it on (or came first: a state newer than `stateAt`).
   */
  private async untilRelaunched(id: string, stateAt: string | null): Promise<boolean> {
    const until = Date.now() + STARTING_WAIT_MS;
    let relaunched = false;
    while (Date.now() < until) {
      await new Promise((r) => setTimeout(r, 250));
      const row = this.store.get(id);
      if (row?.status !== 'running') return false;
      if (row.agent_state === 'starting') relaunched = true;
      else if (relaunched || (row.agent_state_at !== null && row.agent_state_at > (stateAt ?? ''))) return true;
    }
    return false;
  }

  /**
   * Whether a session whose agent is starting left `starting` (its SessionStart arrived) within
   * STARTING_WAIT_MS; false at once for one that was not starting, and for one that stopped running meanwhile.
   */
  private async untilStarted(id: string): Promise<boolean> {
    if (this.store.get(id)?.agent_state !== 'starting') return false;
    const until = Date.now() + STARTING_WAIT_MS;
    while (Date.now() < until) {
      await new Promise((r) => setTimeout(r, 250));
      const row = this.store.get(id);
      if (row?.status !== 'running' || row.agent_state === 'exited') return false;
      if (row.agent_state !== 'starting') return true;
    }
    return false;
  }

  /**
   * Follows Docker's `oom` events for the workspaces' containers: sessions whose agent the OOM killer
   * took go to error with the reason. Disposing it drops the looks not yet taken.
   */
  watchMemoryKills(signals: Pick<WorkspaceEvents, 'on'>): Disposable {
    const sub = signals.on('outOfMemory', ({ workspaceId }) => this.memoryKills.outOfMemory(workspaceId));
    return { dispose: () => (sub.dispose(), this.memoryKills.dispose()) };
  }

  private killedForMemory(row: SessionRow, reason: string): void {
    this.startup.disarm(row.id);
    this.patch(row.id, { status: 'error', reason, agent_state: 'exited', window_id: null });
    this.launcher
      .endRunOf(row.id, 'failed', reason)
      .catch((e: unknown) =>
        this.deps.log.warn('ending the run of a killed agent failed', { sessionId: row.id, error: e }),
      );
    this.signals.emit('agentKilledForMemory', { sessionId: row.id, workspaceId: row.workspace_id, reason });
  }

  async pane(ref: string): Promise<{ sessionId: string; text: string; capturedAt: string }> {
    const w = await this.liveWindow(ref);
    const text = await capturePane(this.deps.runtime, w, w.windowId);
    return { sessionId: w.sessionId, text, capturedAt: new Date().toISOString() };
  }

  /** The session's live tmux window in its running workspace (the pane, the terminal). */
  async liveWindow(ref: string): Promise<LiveWindow> {
    const row = this.resolve(ref);
    const ws = this.deps.runtime.find(row.workspace_id);
    if (!ws?.running || !ws.containerId)
      throw new NexusError('conflict', `The workspace of session ${row.name} is not running.`);
    const windowId = (await listWindows(this.deps.runtime, this.deps.config, ws)).get(row.name);
    if (!windowId) throw new NexusError('not_found', `Session ${row.name} has no live window.`);
    return { sessionId: row.id, name: row.name, containerId: ws.containerId, windowId };
  }

  /**
   * A hook event from nexus.hooks.<subjectWorkspaceId>. Identity comes from the subject (the NATS
   * user may publish only there), so an event naming another workspace's session is ignored; so is
   * one older than the state it would replace (hooks run concurrently and may arrive out of order).
   */
  applyHook(subjectWorkspaceId: string, msg: HookMessage): Session | null {
    const row = this.store.get(msg.sessionId);
    if (!row || row.workspace_id !== subjectWorkspaceId || msg.workspaceId !== subjectWorkspaceId) return null;
    const name = msg.event.hook_event_name;
    // Codex names its thread only in its hooks: what `codex queue --thread` and `codex resume` need.
    const thread = msg.event.session_id;
    if (row.agent === 'codex' && name === 'SessionStart' && thread && thread !== row.agent_thread_id)
      this.store.update(row.id, { agent_thread_id: thread });
    if (name === 'Stop' || name === 'SessionEnd')
      this.signals.emit('agentStopped', { sessionId: row.id, workspaceId: row.workspace_id });
    if (row.agent_state_at && msg.at < row.agent_state_at) return null;
    const found = agentStateFromHook(msg.event);
    if (!found) return null;
    const change = keepNamedTool({ agentState: row.agent_state, message: row.agent_message }, found);
    this.startup.disarm(row.id);
    if (name === 'Stop') this.launcher.summarize(row.run_id, msg.event.last_assistant_message);
    return this.patch(row.id, {
      agent_state: change.agentState,
      agent_state_at: msg.at,
      agent_message: change.message,
    });
  }

  /**
   * The workspace's hook relay died and was started again: events its agents raised meanwhile may be
   * lost, so each running session says so until its next event sets the state again.
   */
  noteHookGap(workspaceId: string): void {
    for (const row of this.store.list(workspaceId))
      if (row.status === 'running')
        this.patch(row.id, {
          agent_message:
            'Hook events may have been missed (the hook relay restarted or lost them); the state updates with the next one.',
        });
  }

  /** See convergeSessions: relaunch what a restart took down, leave alive what lives. */
  converge(workspaceId?: string): Promise<ConvergeReport> {
    return convergeSessions({ runtime: this.deps.runtime, sessions: this.converging, log: this.deps.log }, workspaceId);
  }

  /** Drops records of worktrees whose directory is gone; queued first when a workspace starts, before any session work. */
  pruneWorktrees(workspaceId: string): Promise<void> {
    return this.deps.runtime.run(workspaceId, async () => {
      const ws = this.deps.runtime.find(workspaceId);
      if (ws?.running) await this.branches.prune(ws);
    });
  }

  private convergePort(): ConvergeSessions {
    const { runtime, config } = this.deps;
    const paths = (row: SessionRow) => sessionPaths(config, row.id, row.name);
    return {
      settled: (workspaceId) => this.store.list(workspaceId).filter((r) => !this.inFlight.has(r.id)),
      patch: (id, p) => void this.patch(id, p),
      forgetContainer: (containerId) => this.launcher.forgetTools(containerId),
      liveWindows: async (ws) => {
        await waitForLaunches(runtime, config, ws);
        return listWindows(runtime, config, ws);
      },
      worktreeExists: (ws, row) => worktreeExists(runtime, ws, paths(row)),
      relaunch: async (ws, row) => {
        const { windowId, launchedAt } = await this.launcher.relaunch(ws, row);
        // `codex resume` raises no hook until its next turn (measured on 0.169.0): at its prompt, idle, no watchdog.
        if (row.agent === 'codex' && row.agent_thread_id) {
          this.patch(row.id, {
            window_id: windowId,
            agent_state: 'idle',
            agent_state_at: launchedAt,
            agent_message: 'Relaunched after a restart (Codex thread resumed)',
          });
          return;
        }
        this.patch(row.id, {
          window_id: windowId,
          agent_state: 'starting',
          agent_message: 'Relaunched after a restart (conversation resumed)',
        });
        if (this.launcher.hooksLive(ws)) this.startup.arm(row.id, launchedAt);
      },
      removeWorkArea: async (ws, row) => {
        await removeWorktree(runtime, config, ws, paths(row));
        await removeSessionState(runtime, ws, paths(row));
      },
      runs: {
        endOrphans: () => this.launcher.endOrphanRuns(),
        endStray: (id) => this.launcher.endStrayRuns(id),
        end: (id, status, summary) => this.launcher.endRunOf(id, status, summary),
      },
    };
  }

  /** Resolves when every queued create, delete and converge has finished. */
  idle(): Promise<void> {
    return this.deps.runtime.idle();
  }

  /** The start-up watchdog fired: unless a hook came since the launch, the pane says why the agent is stuck. */
  private async startupTimedOut(id: string, launchedAt: string, timeoutMs: number): Promise<void> {
    const started = (r: SessionRow | null): boolean =>
      !r || r.status !== 'running' || (r.agent_state_at !== null && r.agent_state_at >= launchedAt);
    const row = this.store.get(id);
    if (started(row) || !row) return;
    const ws = this.deps.runtime.find(row.workspace_id);
    if (!ws?.running || !row.window_id) return;
    const pane = await capturePane(this.deps.runtime, ws, row.window_id).catch(() => '');
    if (started(this.store.get(id))) return;
    const reason = startupFailureReason(pane, timeoutMs);
    this.deps.log.warn('agent did not start', { sessionId: id });
    this.patch(id, { status: 'error', reason });
  }

  private resolve(ref: string): SessionRow {
    return this.lookup.row(ref);
  }

  private patch(id: string, patch: SessionPatch): Session | null {
    const row = this.store.update(id, patch);
    if (!row) return null;
    const session = this.toSession(row);
    this.emit(session);
    return session;
  }

  private emit(session: Session): void {
    this.deps.events.emit('sessions.changed', { session });
  }

  /** The workspace's name comes from the store (given, or looked up there), never from the engine. */
  private toSession(row: SessionRow, workspaceName?: string): Session {
    return {
      id: row.id,
      workspaceId: row.workspace_id,
      workspaceName: workspaceName ?? this.deps.runtime.find(row.workspace_id)?.name ?? row.workspace_id,
      name: row.name,
      branch: row.branch,
      agent: row.agent,
      status: row.status,
      reason: row.reason,
      agentState: row.agent_state,
      agentStateAt: row.agent_state_at,
      agentMessage: row.agent_message,
      taskId: row.task_id,
      toolsReason: row.tools_reason,
      createdAt: row.created_at,
      updatedAt: row.updated_at,
    };
  }
}
