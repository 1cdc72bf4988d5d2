import { NexusError } from '../../../shared/errors';
import { nexusMcpEnv } from '../platform/nexus-mcp-env';
import type { RunCredentials } from '../platform/platform-service';
import type { Logger } from '../log';

/**
 * Platform tools for sessions: each session's agent calls them as its own platform run. The run's
 * agent is one per workspace (named `workspace:<id>`, project = the workspace id, so `project`
 * memories are shared by the workspace's sessions), created the first time a session needs it.
 */

/** What sessions need of core.platform. */
export interface PlatformRuns {
  agents: { list(): { id: string; name: string }[] };
  createAgent(input: { name: string; project?: string | null }): { id: string };
  createRun(agentId: string, taskId?: string | null, sessionId?: string | null): Promise<RunCredentials>;
  endRun(runId: string, status?: 'finished' | 'failed' | 'cancelled', summary?: string): Promise<void>;
}

/** The run's files in the session's state dir: written 0600 by the worker user, removed with the session. */
export interface RunFiles {
  passwordFile: string;
  mcpConfig: string;
}
export const runFiles = (stateDir: string): RunFiles => ({
  passwordFile: `${stateDir}/nats-password`,
  mcpConfig: `${stateDir}/mcp.json`,
});

/** An HTTP MCP server entry (the workspace's `nexus-fleet`: Nexus's own server, with its bearer header). */
export interface McpHttpEntry {
  type: 'http';
  url: string;
  headers: Record<string, string>;
}

/** The `nexus-fleet` entry for a session, when its workspace has a fleet credential (core.fleet). */
export type FleetEntryOf = (workspaceId: string, sessionId: string) => Promise<McpHttpEntry | null>;

/**
 * The `--mcp-config` JSON: nexus-mcp over stdio reading the password from the file (never carrying
 * it), and the fleet server when the workspace has one. The file is 0600 in the session's state dir.
 */
export function mcpConfigJson(
  run: { creds: RunCredentials; files: RunFiles; command: string } | null,
  fleet: { name: string; entry: McpHttpEntry } | null = null,
): string {
  const servers: Record<string, unknown> = {};
  if (run)
    servers.nexus = {
      command: run.command,
      args: [],
      env: nexusMcpEnv(run.creds, run.creds.password ? { passwordFile: run.files.passwordFile } : {}),
    };
  if (fleet) servers[fleet.name] = fleet.entry;
  return `${JSON.stringify({ mcpServers: servers }, null, 2)}\n`;
}

export const workspaceAgentName = (workspaceId: string): string => `workspace:${workspaceId}`;

export class SessionRuns {
  constructor(
    private readonly platform: PlatformRuns,
    private readonly log: Logger,
  ) {}

  /** The workspace's agent, created once (callers run in the workspace's queue, so never twice). */
  agentFor(workspaceId: string): string {
    const name = workspaceAgentName(workspaceId);
    return (
      this.platform.agents.list().find((a) => a.name === name)?.id ??
      this.platform.createAgent({ name, project: workspaceId }).id
    );
  }

  /** A new run for the session; null when NATS is unavailable (the session then runs without platform tools). */
  async start(workspaceId: string, sessionId: string): Promise<RunCredentials | null> {
    try {
      return await this.platform.createRun(this.agentFor(workspaceId), undefined, sessionId);
    } catch (e) {
      if (e instanceof NexusError && e.code === 'nats_unavailable') {
        this.log.warn('session starts without platform tools', { sessionId, reason: e.message });
        return null;
      }
      throw e;
    }
  }

  /** Ends a run; one already ended or gone is fine. */
  async end(runId: string, status: 'finished' | 'cancelled', summary: string): Promise<void> {
    try {
      await this.platform.endRun(runId, status, summary);
    } catch (e) {
      if (!(e instanceof NexusError && e.code === 'not_found'))
        this.log.warn('ending a session run failed', { runId, error: e });
    }
  }
}
