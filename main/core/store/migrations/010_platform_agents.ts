import type { Migration } from './types';

/**
 * Platform agents, complete (docs/platform-tools.md): each agent record gains its permissions (the
 * grants a tool's check needs; every grant by default, as before), its external MCP servers, and
 * the opt-in auto-start of delegated tasks with its concurrency cap. Sessions gain the task they run
 * on and the reason they run without platform tools (null when they have them).
 */
export const migration010: Migration = {
  version: 10,
  name: 'platform_agents',
  up(db) {
    db.exec(`
      ALTER TABLE agents ADD COLUMN permissions TEXT NOT NULL
        DEFAULT '["memory.write","skill.write","task.write","board.write"]';
      ALTER TABLE agents ADD COLUMN mcp_servers TEXT NOT NULL DEFAULT '[]';
      ALTER TABLE agents ADD COLUMN auto_start INTEGER NOT NULL DEFAULT 0 CHECK (auto_start IN (0, 1));
      ALTER TABLE agents ADD COLUMN max_auto_sessions INTEGER NOT NULL DEFAULT 1;
      ALTER TABLE sessions ADD COLUMN tools_reason TEXT;
      ALTER TABLE sessions ADD COLUMN task_id TEXT;
      CREATE INDEX tasks_status ON tasks(status, created_at);
      CREATE INDEX runs_task ON runs(task_id);
    `);
  },
};
