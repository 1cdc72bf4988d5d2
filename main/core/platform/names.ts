import type { Actor } from '../../../shared/contract/platform';
import type { Db } from '../store';
import { AgentStore } from './store/agents';
import { RunStore } from './store/runs';

/**
 * Where the names of workspaces and sessions come from: their rooms' stores, handed down by core's composition
 * (platform sits below both rooms, so it never reads their tables).
 */
export interface NameLookup {
  workspaceName(id: string): string | null;
  session(id: string): { name: string; workspaceId: string } | null;
}

/**
 * Names a person reads for who did something: the agent's workspace and the session its run
 * belonged to ("flow · beta"), never bare ids. A workspace's agent is `workspace:<id>` with
 * project = the workspace id (sessions/launch/session-runs.ts). Reads only; one query per lookup, cached
 * per `Names` (build one per listing).
 */
export class Names {
  private readonly agents = new Map<string, { name: string; project: string | null } | null>();
  private readonly workspaces = new Map<string, string | null>();
  private readonly runs = new Map<string, { sessionId: string | null } | null>();
  private readonly sessions = new Map<string, { name: string; workspaceId: string } | null>();

  private readonly agentStore: AgentStore;
  private readonly runStore: RunStore;

  constructor(
    db: Db,
    private readonly lookup: NameLookup,
  ) {
    this.agentStore = new AgentStore(db);
    this.runStore = new RunStore(db);
  }

  private agent(id: string): { name: string; project: string | null } | null {
    if (!this.agents.has(id)) this.agents.set(id, this.agentStore.get(id));
    return this.agents.get(id) ?? null;
  }

  /** A workspace's name, or null when it is gone (or `id` names none). */
  workspaceName(id: string | null): string | null {
    if (!id) return null;
    if (!this.workspaces.has(id)) {
      this.workspaces.set(id, this.lookup.workspaceName(id));
    }
    return this.workspaces.get(id) ?? null;
  }

  /** A live session's name and workspace. */
  session(id: string | null): { name: string; workspaceId: string } | null {
    if (!id) return null;
    if (!this.sessions.has(id)) this.sessions.set(id, this.lookup.session(id));
    return this.sessions.get(id) ?? null;
  }

  private sessionOfRun(runId: string): string | null {
    if (!this.runs.has(runId)) this.runs.set(runId, this.runStore.get(runId));
    return this.runs.get(runId)?.sessionId ?? null;
  }

  actor(agentId: string | null, runId: string | null): Actor {
    const agent = agentId ? this.agent(agentId) : null;
    const workspaceId = agent?.name === `workspace:${agent?.project}` ? agent.project : null;
    const sessionId = runId ? this.sessionOfRun(runId) : null;
    const session = this.session(sessionId);
    return {
      agentId,
      agentName: agent?.name ?? null,
      workspaceId,
      workspaceName: this.workspaceName(workspaceId),
      sessionId: session ? sessionId : null,
      sessionName: session?.name ?? null,
    };
  }
}
