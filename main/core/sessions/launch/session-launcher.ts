import type { Logger } from '../../log';
import { DELEGATED_MCP_SERVER } from '../../../../shared/contract/delegation';
import { NexusError } from '../../../../shared/errors';
import type { AgentDrivers, DriverExec, LaunchPlan, SessionGateway } from '../../agents';
import type { WorkspaceInfo } from '../../workspaces';
import type { SessionsConfig } from '../config';
import { launchOne, type RunFileWrite } from './launch-exec';
import type { ContainerExec } from '../container-sh';
import { isExecutable } from './is-executable';
import { installWorkerTools, natsFile, type HookTarget, type WorkerTools } from './worker-tools';
import { hookHandler } from '../hooks/hook-relay';
import { sessionPaths } from '../session-paths';
import { mcpServers, runFiles, type DelegatedEntryOf, type SessionRuns } from './session-runs';
import type { SessionRow, SessionStore } from '../session-store';
import type { ExternalMcpOf } from './external-mcp';
import { newBearer, residentMcpEntry, residentRunFile } from './resident-mcp';
import { RESIDENT_RUN_FILE } from '../../../../shared/resident-mcp';
import type { SessionSetupHooks } from '../setup/session-setup';

/** What sessions need of the model gateway (core.gateway). */
export interface SessionGatewayPort {
  /** Where a kind's sessions in a workspace send their model requests; null while the gateway does not listen. */
  urlFor(kind: string, workspaceId: string): string | null;
  /** Learns where the workspace's workers reach the gateway (a remote engine's relay), before a launch is planned. */
  route?(workspaceId: string): Promise<void>;
  /** A fresh credential for the session (its last one stops working). */
  issue(caller: { sessionId: string; workspaceId: string; agent: string }): string;
  /** Whether a kind's sessions in the workspace have a credential in Nexus to sign their requests with. */
  hasCredential(workspaceId: string, kind: string): boolean;
}

/** A kind's CLI where the workspace runs (a remote engine gets a copy at the first session of the kind there). */
export interface AgentCliPresence {
  present(ws: WorkspaceInfo, kind: string): Promise<boolean>;
  /** Copies it there, saying how far it is (once per engine and version: it may take minutes over a slow link). */
  bring(ws: WorkspaceInfo, kind: string, progress: (step: string) => void): Promise<void>;
}

/** The session's gateway credential file, in its state dir (0600, written with its other run files). */
const gatewayKeyFile = (stateDir: string): string => `${stateDir}/gateway-key`;

/** A launch's platform run: its `--mcp-config` path and the files the launch writes (both absent: none). */
export interface LaunchRun {
  mcpConfig?: string | undefined;
  runFiles?: RunFileWrite | undefined;
}

export interface SessionLauncherDeps {
  store: SessionStore;
  /** The workspace runtime's exec: every command this launcher runs in a container. */
  runtime: ContainerExec;
  config: SessionsConfig;
  tools: WorkerTools;
  /** Publish-only NATS credentials for the workspace's hook subject; null when there is no NATS. */
  hookTarget(workspaceId: string): HookTarget | null | Promise<HookTarget | null>;
  /** Absent: sessions run without platform tools. */
  runs: SessionRuns | null;
  /** The agent kinds: each session's launch, sign-in check, MCP config and more are its kind's driver's. */
  drivers: AgentDrivers;
  /** core.gateway: where a kind's model requests go, and each session's credential for it (absent: no gateway). */
  gateway?: SessionGatewayPort | undefined;
  /** The workspace's `nexus-delegated` server entry (absent or null: its sessions get none). */
  delegatedEntry?: DelegatedEntryOf | undefined;
  /** The workspace agent's external MCP servers (absent: none). */
  external?: ExternalMcpOf | undefined;
  /** Where a container whose resident nexus-mcp did not start is said (absent: not said). */
  log?: Pick<Logger, 'warn'> | undefined;
  /** Each session's ports and, for a new one, its files and setup before the agent (setup/session-setup.ts). */
  setup?: Pick<SessionSetupHooks, 'env' | 'prelude'> | undefined;
  /** Absent: every kind's CLI is where its workspaces run (the local engine's bind mounts). */
  agentCli?: AgentCliPresence | undefined;
}

/**
 * What a create and a converge share to bring an agent up: the worker tools in the container,
 * the session's platform run and its files, and the launch command. Callers run in the workspace's queue.
 */
export class SessionLauncher {
  /** Containers whose worker tools are installed (by container id: a new container needs them again). */
  private readonly toolsInstalled = new Set<string>();
  /** Per container: why nexus-mcp cannot run there (null: it can). */
  private readonly mcpMissing = new Map<string, Promise<string | null>>();
  /**
   * Containers whose agent CLI and credential were there at a create: both come with the container's
   * start (mount, injection), so later creates skip the exec until it starts again (forgetTools).
   */
  private readonly agentReady = new Map<string, Set<string>>();
  /** Containers whose resident nexus-mcp listened when their tools were installed (resident-mcp.ts). */
  private readonly residentMcp = new Set<string>();

  constructor(private readonly deps: SessionLauncherDeps) {}

  /** The session's launch, checked by its kind's driver; throws bad_request for a prompt it cannot carry. */
  plan(
    ws: Pick<WorkspaceInfo, 'id' | 'name' | 'bypassPermissions'>,
    row: SessionRow,
    opts: { initialMessage?: string | undefined; resume: boolean },
  ): LaunchPlan {
    const { config } = this.deps;
    const relay = {
      toolsDir: config.toolsDir,
      stateDir: config.stateDir,
      natsFile: natsFile(config),
      port: config.hookRelayPort,
      workspaceId: ws.id,
    };
    const plan = this.deps.drivers.get(row.agent).plan({
      workspace: ws.name,
      workspaceId: ws.id,
      name: row.name,
      sessionId: row.id,
      agentSessionId: row.agent_session_id,
      conversationId: row.agent_thread_id,
      initialMessage: opts.initialMessage,
      resume: opts.resume,
      bypass: ws.bypassPermissions ?? false,
      // A kind whose hooks are per session runs the Node hook command for each (the relay's HTTP hooks are for
      // the container-wide settings a kind's containerSetup writes).
      hookHandler: (event, timeout) => hookHandler(event, relay, timeout, 'node'),
      permissionWaitMs: config.permissionWaitMs,
      gateway: this.gatewayOf(row),
      worker: { toolsDir: config.toolsDir, natsFile: natsFile(config) },
    });
    const setup = this.deps.setup;
    if (!setup) return plan;
    // Read when the command is assembled (the row exists by then): the session's ports, a new one's setup first.
    return {
      command: (mcpConfig) => {
        const c = plan.command(mcpConfig);
        const prelude = opts.resume ? [] : setup.prelude(row);
        return { ...c, env: { ...c.env, ...setup.env(row) }, preludeLines: [...prelude, ...c.preludeLines] };
      },
    };
  }

  /** The session's way to its model: its kind's gateway URL and its credential's file (null: no gateway). */
  private gatewayOf(row: Pick<SessionRow, 'id' | 'name' | 'agent' | 'workspace_id'>): SessionGateway | null {
    const url = this.deps.gateway?.urlFor(row.agent, row.workspace_id) ?? null;
    return url ? { url, keyFile: gatewayKeyFile(sessionPaths(this.deps.config, row.id, row.name).stateDir) } : null;
  }

  /** Where the workspace's workers reach the model gateway (on a remote engine: its relay), before a plan. */
  async routeModel(ws: Pick<WorkspaceInfo, 'id'>): Promise<void> {
    await this.deps.gateway?.route?.(ws.id);
  }

  /** Commands in the workspace's container, as a driver runs them. */
  private execIn(ws: WorkspaceInfo): DriverExec {
    return (cmd, opts) =>
      this.deps.runtime.exec(ws, cmd, { timeoutMs: opts?.timeoutMs ?? this.deps.config.sendTimeoutMs, env: opts?.env });
  }

  /** The session's kind can start here (its CLI mounted, its credential injected): its driver checks, once per container. */
  async checkAgentReady(ws: WorkspaceInfo, kind: string): Promise<void> {
    const containerId = ws.containerId ?? '';
    if (this.agentReady.get(containerId)?.has(kind)) return;
    const driver = this.deps.drivers.get(kind);
    if (driver.needsCredential && this.deps.gateway && !this.deps.gateway.hasCredential(ws.id, kind))
      throw new NexusError(
        'conflict',
        `Workspace ${ws.name} has no credential for ${driver.label}. Add ${driver.credential.describe} under ` +
          'Settings → Secrets and pick it in Settings → Agent (or name it when creating the workspace).',
      );
    // Not copied to the workspace's engine yet: the create's bring-up copies it, then checks (bringAgentCli).
    if (this.deps.agentCli && !(await this.deps.agentCli.present(ws, kind))) return;
    await driver.ready(this.execIn(ws), ws.name);
    const ready = this.agentReady.get(containerId) ?? new Set<string>();
    this.agentReady.set(containerId, ready.add(kind));
  }

  /** In a create's bring-up: the kind's CLI copied to the workspace's engine if it is not there yet, then checked. */
  async bringAgentCli(ws: WorkspaceInfo, kind: string, progress: (step: string) => void): Promise<void> {
    if (this.agentReady.get(ws.containerId ?? '')?.has(kind)) return;
    await this.deps.agentCli?.bring(ws, kind, progress);
    await this.checkAgentReady(ws, kind);
  }

  async ensureTools(ws: WorkspaceInfo): Promise<void> {
    const containerId = ws.containerId ?? '';
    if (this.toolsInstalled.has(containerId)) return;
    const hookTarget = await this.deps.hookTarget(ws.id);
    const { config } = this.deps;
    const { drivers } = this.deps;
    const installed = await installWorkerTools(this.deps.runtime, config, ws, this.deps.tools, hookTarget, {
      drivers: drivers.all,
      bypass: ws.bypassPermissions ?? false,
      residentMcp:
        config.residentMcp &&
        config.nexusMcpEnabled &&
        this.deps.runs !== null &&
        drivers.all.some((d) => d.usesResidentMcp),
    });
    if (installed.residentMcp) this.residentMcp.add(containerId);
    else this.residentMcp.delete(containerId);
    if (installed.residentProblem)
      this.deps.log?.warn('the resident nexus-mcp did not start: sessions here get a stdio nexus-mcp each', {
        workspaceId: ws.id,
        detail: installed.residentProblem,
      });
    // Without NATS the hooks have nowhere to publish: install again once it is back.
    if (hookTarget) this.toolsInstalled.add(containerId);
  }

  /** The task a new session runs on (see SessionRuns.taskFor); null without platform tools. */
  taskFor(
    workspaceId: string,
    input: { name: string; taskId?: string | undefined; initialMessage?: string | undefined },
  ): string | null {
    if (!this.deps.runs) {
      if (input.taskId) throw new NexusError('nats_unavailable', 'Tasks need platform tools, which are not set up.');
      return null;
    }
    return this.deps.runs.taskFor(workspaceId, input);
  }

  /** A Stop hook's last assistant message becomes the run's summary. */
  summarize(runId: string | null, lastAssistantMessage: unknown): void {
    if (runId && typeof lastAssistantMessage === 'string') this.deps.runs?.summarize(runId, lastAssistantMessage);
  }

  /** Why nexus-mcp is off for sessions in this workspace: disabled by config, or its binary is missing. */
  private async mcpOff(ws: WorkspaceInfo): Promise<string | null> {
    const { config, runtime } = this.deps;
    if (!config.nexusMcpEnabled) return 'Platform tools are off: NEXUS_MCP_ENABLED=0.';
    const key = ws.containerId ?? '';
    let missing = this.mcpMissing.get(key);
    if (!missing) {
      // One check per container, shared by the creates that start their runs together.
      missing = isExecutable(runtime, ws, config.nexusMcpCommand).then((present) =>
        present
          ? null
          : `Platform tools are off: this workspace's image has no nexus-mcp (${config.nexusMcpCommand}); run npm ` +
            `run build, then recreate the workspace.`,
      );
      missing.catch(() => this.mcpMissing.delete(key));
      this.mcpMissing.set(key, missing);
    }
    return missing;
  }

  /** Whether hook events can reach core from this container (its hook credentials are installed). */
  hooksLive(ws: Pick<WorkspaceInfo, 'containerId'>): boolean {
    return this.toolsInstalled.has(ws.containerId ?? '');
  }

  /** A restarted container lost its /tmp (tools, inbox addresses): install again before any relaunch. */
  forgetTools(containerId: string): void {
    this.toolsInstalled.delete(containerId);
    this.agentReady.delete(containerId);
    this.residentMcp.delete(containerId);
  }

  /**
   * Gives the session a fresh platform run (ending the one it had) and says which run files its
   * launch writes into its state dir, 0600: the run's password file and the MCP config (with the
   * workspace's `nexus-delegated` server, when it has one). Writing them is the launch's job (one exec
   * with the worktree and window, see launch-exec.ts). Nothing to write when there is neither.
   */
  async startRun(ws: WorkspaceInfo, row: SessionRow): Promise<LaunchRun> {
    const { runs, store, config } = this.deps;
    let creds = null;
    if (runs) {
      if (row.run_id) await runs.end(row.run_id, 'cancelled', 'Replaced by a new run when the session was relaunched.');
      const off = await this.mcpOff(ws);
      const run = off ? { creds: null, reason: off } : await runs.start(ws.id, row.id, row.task_id);
      creds = run.creds;
      store.update(row.id, { run_id: creds?.runId ?? null, tools_reason: run.reason });
    } else store.update(row.id, { tools_reason: 'Platform tools are off: this Nexus has no platform service.' });
    const delegated = (await this.deps.delegatedEntry?.(ws.id, row.id)) ?? null;
    const external = (await this.deps.external?.(ws.id).catch(() => ({}))) ?? {};
    const driver = this.deps.drivers.get(row.agent);
    const paths = sessionPaths(config, row.id, row.name);
    const files = runFiles(paths.stateDir);
    // A session of a kind whose CLI speaks HTTP MCP, in a container whose resident nexus-mcp listens, calls through
    // it as itself.
    const resident = creds && driver.usesResidentMcp && this.residentMcp.has(ws.containerId ?? '');
    const bearer = resident ? newBearer() : null;
    const servers = mcpServers(
      creds
        ? {
            creds,
            files,
            command: config.nexusMcpCommand,
            resident: bearer ? residentMcpEntry(config.residentMcpPort, row.id, bearer) : null,
          }
        : null,
      delegated ? { name: DELEGATED_MCP_SERVER, entry: delegated } : null,
      external,
    );
    const gateway = this.gatewayOf(row);
    const mcp = driver.mcpConfig({
      stateDir: paths.stateDir,
      worktree: paths.worktree,
      servers,
      trusted: ['nexus', DELEGATED_MCP_SERVER],
      gateway,
    });
    // A fresh gateway credential with each run: the one a relaunched agent's last run held stops working.
    const gatewayKey =
      gateway && this.deps.gateway
        ? this.deps.gateway.issue({ sessionId: row.id, workspaceId: ws.id, agent: row.agent })
        : null;
    if (!mcp && !gatewayKey) return {};
    return {
      mcpConfig: mcp?.file,
      runFiles: {
        passwordFile: files.passwordFile,
        password: creds?.password ?? null,
        mcpConfigFile: mcp?.file ?? '',
        mcpConfig: mcp?.content ?? '',
        ...(creds && bearer
          ? { residentRunFile: `${paths.stateDir}/${RESIDENT_RUN_FILE}`, residentRun: residentRunFile(creds, bearer) }
          : {}),
        ...(gateway && gatewayKey ? { gatewayKeyFile: gateway.keyFile, gatewayKey } : {}),
      },
    };
  }

  /**
   * Launches a running session's agent again in its kept worktree, resuming its conversation (after
   * a restart took its window): the tools, a fresh run, the command, one launch exec.
   */
  async relaunch(ws: WorkspaceInfo, row: SessionRow): Promise<{ windowId: string; launchedAt: string }> {
    await this.ensureTools(ws);
    await this.routeModel(ws);
    const run = await this.startRun(ws, row);
    const cmd = this.plan(ws, row, { resume: true }).command(run.mcpConfig);
    const launchedAt = new Date().toISOString();
    const paths = sessionPaths(this.deps.config, row.id, row.name);
    const item = { name: row.name, paths, cmd, addWorktree: false, runFiles: run.runFiles };
    return { windowId: await launchOne(this.deps.runtime, this.deps.config, ws, item), launchedAt };
  }

  /** Ends the session's current run (read now: a create still in the queue may have just started it). */
  async endRunOf(sessionId: string, status: 'finished' | 'failed' | 'cancelled', summary: string): Promise<void> {
    const runId = this.deps.store.get(sessionId)?.run_id;
    if (runId) await this.deps.runs?.end(runId, status, summary);
  }

  /** Ends the session's runs other than its current one (started, then a crash before it was recorded). */
  async endStrayRuns(sessionId: string): Promise<void> {
    const { runs, store } = this.deps;
    if (!runs) return;
    const current = store.get(sessionId)?.run_id ?? null;
    const stray = runs.runningForSessions().filter((r) => r.sessionId === sessionId && r.id !== current);
    for (const { id } of stray)
      await runs.end(id, 'cancelled', 'Started for a session that never used it (interrupted by a restart).');
  }

  /** Ends runs whose session is gone (a deleted workspace takes its sessions with it). */
  async endOrphanRuns(): Promise<number> {
    const { runs, store } = this.deps;
    if (!runs) return 0;
    const ids = runs
      .runningForSessions()
      .filter((r) => store.get(r.sessionId) === null)
      .map((r) => r.id);
    for (const id of ids) await runs.end(id, 'cancelled', 'Its session was removed.');
    return ids.length;
  }
}
