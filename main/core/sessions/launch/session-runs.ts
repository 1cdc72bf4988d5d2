import { NexusError } from '../../../../shared/errors';
import { nexusMcpEnv, workspaceAgentName, type RunCredentials } from '../../platform';
import type { McpStdioEntry } from './external-mcp';
import type { Logger } from '../../log';

/**
 * Platform tools for sessions: each session's agent calls them as its own platform run. The run's
 * agent is one per workspace (named `workspace:<id>`, project = the workspace id, so `project`
 * memories are shared by the workspace's sessions), created the first time a session needs it.
 */

/** What sessions need of core.platform. */
export interface PlatformRuns {
  agents: { byName(name: string): { id: string } | null };
  createAgent(input: { name: string; project?: string | null }): { id: string };
  createRun(agentId: string, taskId?: string | null, sessionId?: string | null): Promise<RunCredentials>;
  /** Where this workspace's workers reach NATS (a remote engine's leaf node; absent: the run's own URL). */
  workerUrl?(workspaceId: string): Promise<string>;
  endRun(runId: string, status?: 'finished' | 'failed' | 'cancelled', summary?: string): Promise<void>;
  runs: {
    get(id: string): { summary: string } | null;
    setSummary(id: string, summary: string): void;
    runningForSessions(): { id: string; sessionId: string }[];
  };
  tasks: {
    get(id: string): { id: string; status: string } | null;
    project(id: string): string | null;
    setStatus(id: string, status: 'in_progress'): boolean;
  };
  createTask(input: { title: string; body?: string; project?: string | null }): { id: string };
  feed: { changed(c: { taskId: string; kind: 'task' | 'status' }): void };
}

/** A session's run, or why it has none (the session then runs without platform tools). */
export type SessionRun = { creds: RunCredentials; reason: null } | { creds: null; reason: string };

/** The run's files in the session's state dir: written 0600 by the worker user, removed with the session. */
export interface RunFiles {
  passwordFile: string;
  mcpConfig: string;
}
export const runFiles = (stateDir: string): RunFiles => ({
  passwordFile: `${stateDir}/nats-password`,
  mcpConfig: `${stateDir}/mcp.json`,
});

/** An HTTP MCP server entry (the workspace's `nexus-delegated`: Nexus's own server, with its bearer header). */
export interface McpHttpEntry {
  type: 'http';
  url: string;
  headers: Record<string, string>;
}

/** The `nexus-delegated` entry for a session, when its workspace has a delegated credential (core.delegation). */
export type DelegatedEntryOf = (workspaceId: string, sessionId: string) => Promise<McpHttpEntry | null>;

/**
 * A session's MCP servers (each agent kind's driver writes them in its own format): the resident nexus-mcp over HTTP with the session's bearer (resident-mcp.ts),
 * or a stdio nexus-mcp reading the password from the file (never carrying it), the delegated server when the
 * workspace has one, and the agent's external stdio servers. The file is 0600 in the session's state dir.
 */
export function mcpServers(
  run: { creds: RunCredentials; files: RunFiles; command: string; resident?: McpHttpEntry | null } | null,
  delegated: { name: string; entry: McpHttpEntry } | null = null,
  external: Record<string, McpStdioEntry> = {},
): Record<string, unknown> {
  // The agent's external servers first: their names can never be `nexus` or `nexus-delegated` (contract).
  const servers: Record<string, unknown> = { ...external };
  if (run?.resident) servers.nexus = run.resident;
  else if (run)
    servers.nexus = {
      command: run.command,
      args: [],
      env: nexusMcpEnv(run.creds, run.creds.password ? { passwordFile: run.files.passwordFile } : {}),
    };
  if (delegated) servers[delegated.name] = delegated.entry;
  return servers;
}

export class SessionRuns {
  constructor(
    private readonly platform: PlatformRuns,
    private readonly log: Logger,
  ) {}

  /** The workspace's agent, created once (callers run in the workspace's queue, so never twice). */
  agentFor(workspaceId: string): string {
    const name = workspaceAgentName(workspaceId);
    return this.platform.agents.byName(name)?.id ?? this.platform.createAgent({ name, project: workspaceId }).id;
  }

  /**
   * The task a new session runs on: the one the operator picked (it must be this workspace's or
   * nobody's, and not finished), else a new one whose goal is the initial message. It goes in_progress.
   */
  taskFor(
    workspaceId: string,
    input: { name: string; taskId?: string | undefined; initialMessage?: string | undefined },
  ): string {
    const { tasks } = this.platform;
    if (input.taskId) {
      const task = tasks.get(input.taskId);
      const project = task ? tasks.project(task.id) : null;
      if (!task || (project !== null && project !== workspaceId))
        throw new NexusError('not_found', `No task "${input.taskId}" in this workspace.`);
      if (task.status === 'done' || task.status === 'cancelled')
        throw new NexusError('conflict', `Task "${input.taskId}" is ${task.status}.`);
      tasks.setStatus(task.id, 'in_progress');
      this.platform.feed.changed({ taskId: task.id, kind: 'status' });
      return task.id;
    }
    const goal = input.initialMessage?.trim() ?? '';
    const firstLine = goal.split('\n')[0]?.trim() ?? '';
    const title = firstLine
      ? firstLine.length > 200
        ? `${firstLine.slice(0, 199)}…`
        : firstLine
      : `Session ${input.name}`;
    const task = this.platform.createTask({ title, body: goal, project: workspaceId });
    this.platform.feed.changed({ taskId: task.id, kind: 'task' });
    return task.id;
  }

  /** A new run for the session on its task, or why there is none (NATS unavailable). */
  async start(workspaceId: string, sessionId: string, taskId: string | null): Promise<SessionRun> {
    try {
      const creds = await this.platform.createRun(this.agentFor(workspaceId), taskId, sessionId);
      const natsUrl = (await this.platform.workerUrl?.(workspaceId)) ?? creds.natsUrl;
      return { creds: { ...creds, natsUrl }, reason: null };
    } catch (e) {
      if (e instanceof NexusError && e.code === 'nats_unavailable') {
        this.log.warn('session starts without platform tools', { sessionId, reason: e.message });
        return { creds: null, reason: `Platform tools are off for this session: ${e.message}` };
      }
      throw e;
    }
  }

  /** The agent's last message of a finished turn (Stop hook): the run's summary, what run.search finds. */
  summarize(runId: string, lastAssistantMessage: string): void {
    const text = lastAssistantMessage.trim();
    if (text) this.platform.runs.setSummary(runId, text.slice(0, 20_000));
  }

  /** Runs still running that were started for a session, with their session. */
  runningForSessions(): { id: string; sessionId: string }[] {
    return this.platform.runs.runningForSessions();
  }

  /** Ends a run, keeping a summary its Stop hooks gave it; one already ended or gone is fine. */
  async end(runId: string, status: 'finished' | 'failed' | 'cancelled', summary: string): Promise<void> {
    try {
      const kept = this.platform.runs.get(runId)?.summary;
      await this.platform.endRun(runId, status, kept ? undefined : summary);
    } catch (e) {
      if (!(e instanceof NexusError && e.code === 'not_found'))
        this.log.warn('ending a session run failed', { runId, error: e });
    }
  }
}
