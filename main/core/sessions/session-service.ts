import type { SessionSetupHooks } from './setup/session-setup';
import type { AgentCapabilities, AgentKind } from '../../../shared/contract/agent-kind';
import type { Session } from '../../../shared/contract/sessions';
import type { AgentDrivers, AcpSessionInfo } from '../agents';
import { NexusError } from '../../../shared/errors';
import type { Disposable } from '../disposable';
import type { EventBus } from '../events';
import type { Logger } from '../log';
import type { Db } from '../store';
import type { LimitedView } from '../gateway';
import { capturePane, type LiveWindow } from '../terminal';
import { type WorkspaceRuntime, type WorkspaceEvents, publicWorkspace, WorkspaceStore } from '../workspaces';
import type { SessionsConfig } from './config';
import { convergePort } from './converge/converge-port';
import { convergeSessions, type ConvergeReport, type ConvergeSessions } from './converge/session-converge';
import type { HookMessage } from './hooks/hook-events';
import { SessionHooks } from './hooks/session-hooks';
import type { MessageRelay } from './inbox/inbox-send';
import type { DeliveryResult } from './inbox/message-delivery';
import { SessionMessages } from './inbox/session-messages';
import type { ExternalMcpOf } from './launch/external-mcp';
import { SessionLauncher, type AgentCliPresence, type SessionGatewayPort } from './launch/session-launcher';
import { SessionRuns, type DelegatedEntryOf, type PlatformRuns } from './launch/session-runs';
import { StartupWatch, startupTimedOut } from './launch/startup-watch';
import { listWindows } from './launch/tmux';
import type { HookTarget, WorkerTools } from './launch/worker-tools';
import type { SessionMemory } from './memory/memory-admission';
import { MemoryKills } from './memory/memory-kills';
import { SessionBranches } from './session-branches';
import { SessionCreates, type CreateSessionInput } from './session-creates';
import { deleteSession, type DeleteSessionOptions } from './session-delete';
import { SessionLookup } from './session-lookup';
import { SessionSignals, type SessionSignalMap } from './session-signals';
import { sessionPaths } from './session-paths';
import { SessionStore, type SessionRow } from './session-store';
import { SessionUpdates } from './session-updates';

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
  /** The agent kinds: what a session's kind does is its driver's. */
  drivers: AgentDrivers;
  /** core.gateway: each session's way to its model (absent: sessions get none). */
  gateway?: SessionGatewayPort | undefined;
  /** agent.startupTimeoutMs: a launched agent with no SessionStart by then goes to error (unset: never). */
  startupTimeoutMs?: number | undefined;
  /** core.delegation: the workspace's `nexus-delegated` MCP entry for each launched session. */
  delegatedEntry?: DelegatedEntryOf | undefined;
  /** The workspace agent's external MCP servers for each launched session. */
  external?: ExternalMcpOf | undefined;
  /** Each session's ports, files and setup before its agent (setup/session-setup.ts; absent: none). */
  setup?: SessionSetupHooks | undefined;
  /** Makes a kind's CLI present where the workspace runs (absent: it always is). */
  agentCli?: AgentCliPresence | undefined;
}

export type { ConvergeReport } from './converge/session-converge';

/**
 * Sessions, the module's face: create (session-creates.ts), delete (session-delete.ts), send a message
 * (inbox/session-messages.ts), read the pane, apply hook events (hooks/session-hooks.ts), converge
 * (converge/). It builds those parts and hands each only what it names. Reads and hook events touch
 * only the store.
 */
export class SessionService {
  private readonly store: SessionStore;
  /** The workspaces table: the default agent kind a create without `agent` gets. */
  private readonly workspaces: WorkspaceStore;
  private readonly lookup: SessionLookup;
  private readonly branches: SessionBranches;
  private readonly launcher: SessionLauncher;
  private readonly updates: SessionUpdates;
  private readonly creates: SessionCreates;
  private readonly messages: SessionMessages;
  private readonly hooks: SessionHooks;
  private readonly startup: StartupWatch;
  private readonly signals: SessionSignals;
  /** What converge may do (see ConvergeSessions): nothing of this service's state beyond it. */
  private readonly converging: ConvergeSessions;
  /** Finds the sessions whose agent the container's OOM killer took (memory/memory-kills.ts). */
  private readonly memoryKills: MemoryKills;

  constructor(private readonly deps: SessionServiceDeps) {
    const { runtime, config, log } = deps;
    const store = (this.store = new SessionStore(deps.db));
    this.workspaces = new WorkspaceStore(deps.db);
    this.lookup = new SessionLookup(store, runtime);
    this.branches = new SessionBranches(runtime, config.repoDir);
    this.signals = new SessionSignals(log);
    const updates = (this.updates = new SessionUpdates(store, deps.events, runtime));
    const launcher = (this.launcher = new SessionLauncher({
      store,
      runtime,
      config,
      tools: deps.tools,
      hookTarget: (id) => deps.hookTarget(id),
      runs: deps.platform ? new SessionRuns(deps.platform, log) : null,
      drivers: deps.drivers,
      gateway: deps.gateway,
      delegatedEntry: deps.delegatedEntry,
      external: deps.external,
      log,
      setup: deps.setup,
      agentCli: deps.agentCli,
    }));
    const startup = (this.startup = new StartupWatch(
      deps.startupTimeoutMs,
      (id, at, ms) => startupTimedOut({ store, runtime, updates, log }, id, at, ms),
      log,
    ));
    const creates = (this.creates = new SessionCreates({
      store,
      workspaces: this.workspaces,
      runtime,
      config,
      launcher,
      startup,
      updates,
      log,
      maxSessionsPerWorkspace: deps.maxSessionsPerWorkspace,
      memory: deps.memory,
      setup: deps.setup,
    }));
    this.converging = convergePort({
      store,
      runtime,
      config,
      inFlight: (id) => creates.inFlightHas(id),
      updates,
      launcher,
      startup,
      drivers: deps.drivers,
    });
    this.memoryKills = new MemoryKills({
      runtime,
      running: (workspaceId) =>
        store.list(workspaceId).filter((r) => r.status === 'running' && !creates.inFlightHas(r.id)),
      liveWindows: (ws) => listWindows(runtime, config, ws),
      killed: (row, reason) => this.killedForMemory(row, reason),
      log,
    });
    this.messages = new SessionMessages({
      store,
      runtime,
      config,
      helperScript: deps.tools.inboxSendScript,
      relay: deps.messages,
      memoryKills: this.memoryKills,
      drivers: deps.drivers,
    });
    this.hooks = new SessionHooks({ store, updates, signals: this.signals, startup, launcher, drivers: deps.drivers });
  }

  /** Core-internal signals of the sessions module (`agentStopped`). */
  on<K extends keyof SessionSignalMap>(name: K, listener: (e: SessionSignalMap[K]) => void): Disposable {
    return this.signals.on(name, listener);
  }

  async list(workspaceRef?: string): Promise<Session[]> {
    const ws = workspaceRef ? this.deps.runtime.info(workspaceRef) : null;
    const names = new Map((ws ? [ws] : this.deps.runtime.list()).map((w) => [w.id, w.name]));
    return this.store.list(ws?.id).map((r) => this.updates.session(r, names.get(r.workspace_id)));
  }

  /** Whether session `id` exists and belongs to workspace `workspaceId`. */
  inWorkspace(id: string, workspaceId: string): boolean {
    return this.lookup.inWorkspace(id, workspaceId);
  }

  /** A session's agent kind and what it does with a permission request nobody answers (its driver's word). */
  agentOf(id: string): { kind: AgentKind; unanswered: AgentCapabilities['unansweredPermission'] } {
    const { drivers } = this.deps;
    const row = this.store.get(id);
    const driver = row ? drivers.get(row.agent) : drivers.default;
    return { kind: driver.kind, unanswered: driver.capabilities.unansweredPermission };
  }

  /** The session's worktree in its container (null: no such session); the approval rules read paths against it. */
  worktreeOf(id: string): string | null {
    const row = this.store.get(id);
    return row ? sessionPaths(this.deps.config, row.id, row.name).worktree : null;
  }

  /** A session as core's ACP client needs it (agents/acp): its kind, whether it runs, its worktree and conversation. */
  acpView(id: string): AcpSessionInfo | null {
    const row = this.store.get(id);
    if (!row) return null;
    return {
      id: row.id,
      workspaceId: row.workspace_id,
      kind: row.agent,
      running: row.status === 'running',
      worktree: sessionPaths(this.deps.config, row.id, row.name).worktree,
      conversationId: row.agent_thread_id,
    };
  }

  /** The conversation id the session's agent chose (its resume needs it). */
  setConversation(id: string, conversationId: string): void {
    this.store.update(id, { agent_thread_id: conversationId });
  }

  /** The workspace a session belongs to (null: no such session). */
  workspaceOf(id: string): string | null {
    return this.store.get(id)?.workspace_id ?? null;
  }

  /** A session reference resolved: its id and workspace (throws not_found). */
  ref(ref: string): { id: string; workspaceId: string } {
    const row = this.lookup.row(ref);
    return { id: row.id, workspaceId: row.workspace_id };
  }

  /** What stopped a session from outside is gone (a budget raised): its next hook sets its state again. */
  releaseOperatorWait(id: string): void {
    this.hooks.release(id);
  }

  /** The task a session's run works on, or null. */
  taskOf(id: string): string | null {
    return this.store.get(id)?.task_id ?? null;
  }

  /**
   * Something outside the agent stopped it (the model gateway refused its request at a budget): it waits on the
   * operator, saying why, until its next hook moves it on.
   */
  waitOnOperator(id: string, message: string): void {
    const row = this.store.get(id);
    if (row?.status !== 'running') return;
    this.hooks.hold(id, message);
    this.updates.patch(id, {
      agent_state: 'waiting_input',
      agent_state_at: new Date().toISOString(),
      agent_message: message.slice(0, 500),
    });
  }

  /** Saves (null: clears) the provider's usage limit on the session (gateway/usage-limit.ts); shown, not an error. */
  setUsageLimit(id: string, limit: { until: string; at: string; endedTurn: boolean } | null): void {
    const row = this.store.get(id);
    if (!row) return;
    const patch = {
      limited_until: limit?.until ?? null,
      limited_at: limit?.at ?? null,
      limited_ended_turn: limit ? Number(limit.endedTurn) : null,
    };
    // Only a changed reset is told: a CLI's retries repeat the same 429.
    if ((row.limited_until ?? null) === patch.limited_until) this.store.update(id, patch);
    else this.updates.patch(id, patch);
  }

  /** A limited session as the resume at its reset reads it (null: gone or not limited). */
  usageLimitView(id: string): LimitedView | null {
    const row = this.store.get(id);
    if (!row?.limited_at) return null;
    const { status, agent_state: agentState, agent_state_at: agentStateAt, limited_at: limitedAt } = row;
    return { status, agentState, agentStateAt, limitedAt, endedTurn: row.limited_ended_turn === 1 };
  }

  /** The sessions limited by their provider, with their reset (a restarted core re-arms them). */
  usageLimited(): { sessionId: string; until: string }[] {
    return this.store.limited().map((r) => ({ sessionId: r.id, until: r.limited_until }));
  }

  async get(ref: string): Promise<Session> {
    return this.updates.session(this.lookup.row(ref));
  }

  /** Inserts the row as `creating` and returns; worktree, window and launch follow in the queue, then `onDone`. */
  async create(input: CreateSessionInput, onDone?: (s: Session) => void): Promise<Session> {
    return this.creates.create(input, onDone);
  }

  /** Ends runs whose session is gone (a deleted workspace takes its sessions with it). */
  endOrphanRuns(): Promise<number> {
    return this.launcher.endOrphanRuns();
  }

  /** See deleteSession: the branch stays unless `deleteBranch`; unpushed commits also need `force`. */
  async delete(
    ref: string,
    opts: DeleteSessionOptions = {},
  ): Promise<{ deleted: true; id: string; branchDeleted?: boolean }> {
    const row = this.lookup.row(ref);
    const { store, updates, launcher } = this;
    return deleteSession({ store, runtime: this.deps.runtime, config: this.deps.config, launcher, updates }, row, opts);
  }

  /** The agent a workspace's new sessions run when the create names none. */
  defaultAgent(workspaceRef: string): { workspaceId: string; agent: AgentKind } {
    const ws = this.deps.runtime.info(workspaceRef);
    return { workspaceId: ws.id, agent: this.workspaces.get(ws.id).defaultAgent };
  }

  setDefaultAgent(workspaceRef: string, agent: AgentKind): { workspaceId: string; agent: AgentKind } {
    const ws = this.deps.runtime.info(workspaceRef);
    this.workspaces.setDefaultAgent(ws.id, this.deps.drivers.get(agent).kind);
    // The workspace shows its default: the UI hears it as a changed workspace.
    this.deps.events.emit('workspaces.changed', { workspace: publicWorkspace(this.workspaces.get(ws.id)) });
    return { workspaceId: ws.id, agent };
  }

  /** Delivers text through the session's inbox socket (never typed into the terminal). */
  async sendMessage(ref: string, text: string): Promise<DeliveryResult & { sessionId: string }> {
    return this.messages.send(this.lookup.row(ref), text);
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
    this.updates.patch(row.id, { status: 'error', reason, agent_state: 'exited', window_id: null });
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
    const row = this.lookup.row(ref);
    const ws = this.deps.runtime.find(row.workspace_id);
    if (!ws?.running || !ws.containerId)
      throw new NexusError('conflict', `The workspace of session ${row.name} is not running.`);
    const windowId = (await listWindows(this.deps.runtime, this.deps.config, ws)).get(row.name);
    if (!windowId) throw new NexusError('not_found', `Session ${row.name} has no live window.`);
    return { sessionId: row.id, name: row.name, containerId: ws.containerId, windowId };
  }

  /** A hook event from nexus.hooks.<subjectWorkspaceId>, applied by SessionHooks (identity from the subject). */
  applyHook(subjectWorkspaceId: string, msg: HookMessage): Session | null {
    return this.hooks.apply(subjectWorkspaceId, msg);
  }

  /** The workspace's hook relay restarted: each running session says events may have been missed. */
  noteHookGap(workspaceId: string): void {
    this.hooks.noteGap(workspaceId);
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

  /** Resolves when every queued create, delete and converge has finished. */
  idle(): Promise<void> {
    return this.deps.runtime.idle();
  }
}
