import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import type { Db } from '../../store/open';

export interface Agent {
  id: string;
  name: string;
  project: string | null;
  /** Allowed tool names; empty = every gated-available tool. */
  tools: string[];
  createdAt: string;
}

const Row = z.object({
  id: z.string(),
  name: z.string(),
  project: z.string().nullable(),
  tools: z.string(),
  created_at: z.string(),
});
const ToolList = z.array(z.string());
const toAgent = (raw: unknown): Agent => {
  const r = Row.parse(raw);
  return {
    id: r.id,
    name: r.name,
    project: r.project,
    tools: ToolList.parse(JSON.parse(r.tools)),
    createdAt: r.created_at,
  };
};

/** Agent records: the authority every platform-tool call is re-checked against. */
export class AgentStore {
  private readonly byId;
  constructor(private readonly db: Db) {
    this.byId = db.prepare('SELECT * FROM agents WHERE id = ?');
  }

  create(input: { name: string; project?: string | null; tools?: string[] }): Agent {
    const agent: Agent = {
      id: randomUUID(),
      name: input.name,
      project: input.project ?? null,
      tools: input.tools ?? [],
      createdAt: new Date().toISOString(),
    };
    this.db
      .prepare('INSERT INTO agents (id, name, project, tools, created_at) VALUES (?, ?, ?, ?, ?)')
      .run(agent.id, agent.name, agent.project, JSON.stringify(agent.tools), agent.createdAt);
    return agent;
  }

  get(id: string): Agent | null {
    const row = this.byId.get(id);
    return row ? toAgent(row) : null;
  }

  list(): Agent[] {
    return this.db.prepare('SELECT * FROM agents ORDER BY created_at').all().map(toAgent);
  }

  setTools(id: string, tools: string[]): void {
    this.db.prepare('UPDATE agents SET tools = ? WHERE id = ?').run(JSON.stringify(tools), id);
  }
}
