import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { McpServerSpec } from '../../../../shared/contract/platform';
import { allPermissions, type AgentPermission } from '../../../../shared/platform-gating';
import type { Db } from '../../store';

export interface Agent {
  id: string;
  name: string;
  project: string | null;
  /** Allowed tool names; empty = every gated-available tool. */
  tools: string[];
  /** Grants the tools' checks need (shared/platform-gating.ts); every grant by default. */
  permissions: AgentPermission[];
  /** External stdio MCP servers written into the session's --mcp-config beside nexus. */
  mcpServers: McpServerSpec[];
  /** Start a session on each delegated task of this agent's workspace, up to `maxAutoSessions` at once. */
  autoStart: boolean;
  maxAutoSessions: number;
  createdAt: string;
}

export type AgentPatch = Partial<Pick<Agent, 'tools' | 'permissions' | 'mcpServers' | 'autoStart' | 'maxAutoSessions'>>;

const Row = z.object({
  id: z.string(),
  name: z.string(),
  project: z.string().nullable(),
  tools: z.string(),
  permissions: z.string(),
  mcp_servers: z.string(),
  auto_start: z.number().int(),
  max_auto_sessions: z.number().int(),
  created_at: z.string(),
});
const ToolList = z.array(z.string());
// An unknown grant in the row (written by a newer version) is dropped, never granted.
const known = new Set<string>(allPermissions);
const Permissions = z.array(z.string()).transform((l) => l.filter((p): p is AgentPermission => known.has(p)));
const McpServers = z.array(McpServerSpec);
const toAgent = (raw: unknown): Agent => {
  const r = Row.parse(raw);
  return {
    id: r.id,
    name: r.name,
    project: r.project,
    tools: ToolList.parse(JSON.parse(r.tools)),
    permissions: Permissions.parse(JSON.parse(r.permissions)),
    mcpServers: McpServers.parse(JSON.parse(r.mcp_servers)),
    autoStart: r.auto_start === 1,
    maxAutoSessions: r.max_auto_sessions,
    createdAt: r.created_at,
  };
};

/** Agent records: the authority every platform-tool call is re-checked against. */
export class AgentStore {
  private readonly byId;
  constructor(private readonly db: Db) {
    this.byId = db.prepare('SELECT * FROM agents WHERE id = ?');
  }

  create(input: { name: string; project?: string | null; tools?: string[]; permissions?: AgentPermission[] }): Agent {
    const agent: Agent = {
      id: randomUUID(),
      name: input.name,
      project: input.project ?? null,
      tools: input.tools ?? [],
      permissions: input.permissions ?? [...allPermissions],
      mcpServers: [],
      autoStart: false,
      maxAutoSessions: 1,
      createdAt: new Date().toISOString(),
    };
    this.db
      .prepare('INSERT INTO agents (id, name, project, tools, permissions, created_at) VALUES (?, ?, ?, ?, ?, ?)')
      .run(
        agent.id,
        agent.name,
        agent.project,
        JSON.stringify(agent.tools),
        JSON.stringify(agent.permissions),
        agent.createdAt,
      );
    return agent;
  }

  get(id: string): Agent | null {
    const row = this.byId.get(id);
    return row ? toAgent(row) : null;
  }

  byName(name: string): Agent | null {
    const row = this.db.prepare('SELECT * FROM agents WHERE name = ?').get(name);
    return row ? toAgent(row) : null;
  }

  list(): Agent[] {
    return this.db.prepare('SELECT * FROM agents ORDER BY created_at').all().map(toAgent);
  }

  setTools(id: string, tools: string[]): void {
    this.update(id, { tools });
  }

  /** Changes the given fields; returns the record as stored, or null when there is none. */
  update(id: string, patch: AgentPatch): Agent | null {
    const cols: [string, unknown][] = [];
    if (patch.tools) cols.push(['tools', JSON.stringify(patch.tools)]);
    if (patch.permissions) cols.push(['permissions', JSON.stringify(patch.permissions)]);
    if (patch.mcpServers) cols.push(['mcp_servers', JSON.stringify(patch.mcpServers)]);
    if (patch.autoStart !== undefined) cols.push(['auto_start', patch.autoStart ? 1 : 0]);
    if (patch.maxAutoSessions !== undefined) cols.push(['max_auto_sessions', patch.maxAutoSessions]);
    if (cols.length)
      this.db
        .prepare(`UPDATE agents SET ${cols.map(([c]) => `${c} = ?`).join(', ')} WHERE id = ?`)
        .run(...cols.map(([, v]) => v), id);
    return this.get(id);
  }
}
