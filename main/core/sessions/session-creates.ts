import type { AgentKind, Session } from '../../../shared/contract/sessions';
import { errorMessage, NexusError } from '../../../shared/errors';
import type { Logger } from '../log';
import type { WorkspaceInfo, WorkspaceRuntime, WorkspaceStore } from '../workspaces';
import type { SessionsConfig } from './config';
import type { LaunchPlan } from '../agents';
import { launchMany } from './launch/launch-exec';
import type { SessionLauncher } from './launch/session-launcher';
import type { StartupWatch } from './launch/startup-watch';
import { checkSessionMemory, holdsMemory, type SessionMemory } from './memory/memory-admission';
import { sessionPaths } from './session-paths';
import { newSessionRow, type SessionRow, type SessionStore } from './session-store';
import type { SessionUpdates } from './session-updates';
import type { SessionSetupHooks } from './setup/session-setup';

export interface CreateSessionInput {
  /** A name or id, or the workspace the caller already resolved (the delegated scope hands it on). */
  workspace: string | WorkspaceInfo;
  name: string;
  initialMessage?: string | undefined;
  taskId?: string | undefined;
  /** The agent CLI; default: the workspace's default agent, else Claude Code. */
  agent?: AgentKind | undefined;
}

export interface SessionCreatesDeps {
  store: SessionStore;
  /** The workspaces table, for the default agent kind a create without `agent` gets. */
  workspaces: Pick<WorkspaceStore, 'get'>;
  runtime: Pick<WorkspaceRuntime, 'info' | 'find' | 'run' | 'exec'>;
  config: SessionsConfig;
  launcher: Pick<
    SessionLauncher,
    'plan' | 'checkAgentReady' | 'bringAgentCli' | 'routeModel' | 'taskFor' | 'ensureTools' | 'startRun' | 'hooksLive'
  >;
  startup: Pick<StartupWatch, 'arm'>;
  updates: SessionUpdates;
  log: Logger;
  maxSessionsPerWorkspace: number;
  /** The container's limit and one session's figure: a create the container cannot hold is refused (absent: no check). */
  memory: SessionMemory | undefined;
  /** The sessions' files and setup (setup/session-setup.ts; absent: none). */
  setup?: Pick<SessionSetupHooks, 'stage' | 'follow'> | undefined;
}

interface PendingCreate {
  row: SessionRow;
  /** Checked when the create was called; assembled once its run is known. */
  launch: LaunchPlan;
  onDone: ((s: Session) => void) | undefined;
}

/**
 * Creating sessions: the row first (checked, then `creating`), the slow work (worktree, window,
 * launch) in the workspace's queue, where creates that arrived while it was busy launch together.
 */
export class SessionCreates {
  /** Sessions whose create is queued or running in this process. */
  private readonly inFlight = new Set<string>();
  /** Creates waiting for the workspace's queue, launched together. */
  private readonly waiting = new Map<string, PendingCreate[]>();

  constructor(private readonly d: SessionCreatesDeps) {}

  /** Whether the session's create is queued or running in this process (converge and OOM looks leave it be). */
  inFlightHas(id: string): boolean {
    return this.inFlight.has(id);
  }

  /** Inserts the row as `creating` and returns; worktree, window and launch follow in the queue, then `onDone`. */
  async create(input: CreateSessionInput, onDone?: (s: Session) => void): Promise<Session> {
    const { d } = this;
    const ws = typeof input.workspace === 'string' ? d.runtime.info(input.workspace) : input.workspace;
    if (!ws.running) throw new NexusError('conflict', `Workspace ${ws.name} is not running; start it first.`);
    if (d.store.byName(ws.id, input.name))
      throw new NexusError('conflict', `Workspace ${ws.name} already has a session named ${input.name}.`);
    this.checkRoom(ws);
    const row = newSessionRow(ws.id, input.name, input.agent ?? d.workspaces.get(ws.id).defaultAgent);
    // Checked before the row exists, so a bad prompt or agent config fails the call, not the queue.
    await d.launcher.routeModel(ws);
    const launch = d.launcher.plan(ws, row, { initialMessage: input.initialMessage, resume: false });
    await d.launcher.checkAgentReady(ws, row.agent);
    row.task_id = d.launcher.taskFor(ws.id, input);
    // Again after the await, with nothing between it and the insert: a burst of creates cannot all pass.
    this.checkRoom(ws);
    d.store.insert(row);
    const session = d.updates.session(row, ws.name);
    d.updates.emit(session);
    this.inFlight.add(row.id);
    // Creates that arrive while the queue is busy are launched together, in one docker exec.
    let waiting = this.waiting.get(ws.id);
    if (!waiting) {
      const list: PendingCreate[] = [];
      waiting = list;
      this.waiting.set(ws.id, list);
      void d.runtime.run(ws.id, () => this.bringUp(ws.id, list)).catch(() => undefined);
    }
    waiting.push({ row, launch, onDone });
    return session;
  }

  /** The session quota, and the container's memory for one more session (memory/memory-admission.ts). */
  private checkRoom(ws: WorkspaceInfo): void {
    const { d } = this;
    if (d.store.count(ws.id) >= d.maxSessionsPerWorkspace) {
      throw new NexusError(
        'conflict',
        `Workspace ${ws.name} already has ${d.maxSessionsPerWorkspace} sessions, the most allowed.`,
      );
    }
    if (d.memory) {
      const live = d.store.list(ws.id).filter((r) => holdsMemory(r.status)).length;
      checkSessionMemory(ws.name, live, d.memory);
    }
  }

  private async bringUp(workspaceId: string, list: PendingCreate[]): Promise<void> {
    const { d } = this;
    if (this.waiting.get(workspaceId) === list) this.waiting.delete(workspaceId);
    const live = list.filter((c) => d.store.get(c.row.id));
    const fail = (c: PendingCreate, reason: string): void => {
      d.log.warn('session create failed', { sessionId: c.row.id, reason });
      if (d.store.get(c.row.id)) d.updates.patch(c.row.id, { status: 'error', reason });
    };
    try {
      if (live.length === 0) return;
      const ws = d.runtime.find(workspaceId);
      if (!ws?.running) throw new NexusError('conflict', 'The workspace stopped before the session could start.');
      await d.launcher.ensureTools(ws);
      // A kind's first session on a remote engine copies its CLI there first (minutes over a slow link): said on them.
      const brought = new Set<string>();
      for (const kind of new Set(live.map((c) => c.row.agent))) {
        const mine = live.filter((c) => c.row.agent === kind);
        try {
          await d.launcher.bringAgentCli(ws, kind, (step) => {
            for (const c of mine) if (d.store.get(c.row.id)) d.updates.patch(c.row.id, { reason: step });
          });
          brought.add(kind);
        } catch (e) {
          for (const c of mine) fail(c, errorMessage(e));
        }
      }
      // The runs start together (their NATS users land in one server reload); the launch writes their files.
      const started = await Promise.all(
        live
          .filter((c) => brought.has(c.row.agent))
          .map((c) =>
            d.launcher.startRun(ws, c.row).then(
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
        paths: sessionPaths(d.config, c.row.id, c.row.name),
        cmd: c.launch.command(run.mcpConfig),
        addWorktree: true,
        runFiles: run.runFiles,
      }));
      await d.setup?.stage(
        ws,
        ready.map(({ c }) => c.row),
      );
      const launchedAt = new Date().toISOString();
      const results = items.length > 0 ? await launchMany(d.runtime, d.config, ws, items) : [];
      ready.forEach(({ c }, i) => {
        const r = results[i];
        if (r && 'windowId' in r) {
          d.updates.patch(c.row.id, { status: 'running', reason: null, window_id: r.windowId });
          // Without NATS no hook can report the agent's start: the watchdog would fail a working session.
          // A setup before the agent arms the watchdog once it succeeded (setup/session-setup.ts).
          const arm = (at: string): void => {
            if (d.launcher.hooksLive(ws)) d.startup.arm(c.row.id, at);
          };
          if (!d.setup?.follow(ws, c.row, arm)) arm(launchedAt);
        } else fail(c, r?.error ?? 'no launch result');
      });
    } catch (e) {
      for (const c of live) fail(c, errorMessage(e));
    } finally {
      for (const c of list) {
        this.inFlight.delete(c.row.id);
        const row = d.store.get(c.row.id);
        if (c.onDone && row) queueMicrotask(() => c.onDone?.(d.updates.session(row)));
      }
    }
  }
}
