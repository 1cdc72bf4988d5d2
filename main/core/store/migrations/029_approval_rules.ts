import type { Migration } from './types';

/**
 * Approval rules (docs/permissions.md): the operator's own allow / ask / deny rules and the grants made from a
 * permission card. A workspace rule goes with its workspace, a session grant with its session (so "for the
 * session" ends with it); the shipped defaults live in code, never here.
 */
export const migration029: Migration = {
  version: 29,
  name: 'approval_rules',
  up(db) {
    db.exec(`
      CREATE TABLE approval_rules (
        id TEXT PRIMARY KEY,
        scope TEXT NOT NULL CHECK (scope IN ('global', 'workspace', 'session')),
        workspace_id TEXT REFERENCES workspaces(id) ON DELETE CASCADE,
        session_id TEXT REFERENCES sessions(id) ON DELETE CASCADE,
        action TEXT NOT NULL CHECK (action IN ('allow', 'ask', 'deny')),
        tool TEXT NOT NULL CHECK (tool IN ('shell', 'read', 'edit', 'fetch', 'mcp', 'other', 'any')),
        pattern TEXT NOT NULL CHECK (length(pattern) BETWEEN 1 AND 500),
        note TEXT,
        source TEXT NOT NULL CHECK (source IN ('operator', 'grant')),
        created_by TEXT NOT NULL,
        created_at TEXT NOT NULL,
        expires_at TEXT,
        CHECK ((scope = 'global') = (workspace_id IS NULL)),
        CHECK ((scope = 'session') = (session_id IS NOT NULL))
      );
      CREATE INDEX approval_rules_workspace ON approval_rules(workspace_id);
      CREATE INDEX approval_rules_session ON approval_rules(session_id);
    `);
  },
};
