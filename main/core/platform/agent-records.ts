import { NexusError } from '../../../shared/errors';
import { catalogSubjectFor } from '../../../shared/platform-gating';
import { REDACTED } from '../redact';
import type { Agent, AgentPatch, AgentStore } from './store/agents';
import type { RunStore } from './store/runs';
import type { ToolRouter } from './tool-router';

/** A workspace's agent: one per workspace, project = the workspace id (its sessions share `project` memories). */
export const workspaceAgentName = (workspaceId: string): string => `workspace:${workspaceId}`;

export interface AgentRecordsDeps {
  agents: AgentStore;
  runs: RunStore;
  router: Pick<ToolRouter, 'catalog'>;
  /** Publishes as core on NATS (a no-op without it). */
  publish(subject: string, body: string): void;
}

/**
 * The operator's side of agent records: each workspace's agent (created on first use) and its
 * edits. An edit reaches running sessions at once: core pushes each running run's new catalogue to
 * its nexus-mcp (which updates its tools/list), and every call is re-checked against the record anyway.
 */
export class AgentRecords {
  constructor(private readonly deps: AgentRecordsDeps) {}

  /** The workspace's agent record; callers creating it concurrently for one workspace run in its queue. */
  forWorkspace(workspaceId: string): Agent {
    const name = workspaceAgentName(workspaceId);
    return this.deps.agents.byName(name) ?? this.deps.agents.create({ name, project: workspaceId });
  }

  update(id: string, patch: AgentPatch): Agent {
    const before = this.deps.agents.get(id);
    if (!before) throw new NexusError('not_found', `No agent "${id}".`);
    const mcpServers = patch.mcpServers && keepMasked(patch.mcpServers, before.mcpServers);
    const agent = this.deps.agents.update(id, mcpServers ? { ...patch, mcpServers } : patch);
    if (!agent) throw new NexusError('not_found', `No agent "${id}".`);
    this.pushCatalogs(agent);
    return agent;
  }

  /** Sends each running run of the agent its catalogue (what nexus-mcp offers). */
  pushCatalogs(agent: Agent): void {
    for (const run of this.deps.runs.runningOf(agent.id))
      this.deps.publish(catalogSubjectFor(run.id), JSON.stringify(this.deps.router.catalog(agent, run)));
  }
}

/**
 * The editor reads servers back through the redactor, so a literal env value under a secret-shaped
 * name ("API_TOKEN": "…") comes back as "[REDACTED]"; saved again, that keeps the stored value.
 */
function keepMasked(next: Agent['mcpServers'], stored: Agent['mcpServers']): Agent['mcpServers'] {
  return next.map((s) => {
    const old = stored.find((o) => o.name === s.name)?.env ?? {};
    const env = Object.fromEntries(
      Object.entries(s.env).map(([k, v]) => [k, v === REDACTED && typeof old[k] === 'string' ? old[k] : v]),
    );
    return { ...s, env };
  });
}
