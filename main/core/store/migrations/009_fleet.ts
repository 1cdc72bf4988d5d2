import type { Migration } from './types';

/**
 * Fleet credentials: a workspace's sessions reach Nexus's MCP server with one ordinary MCP token
 * (hashed in `tokens`); this row says which token belongs to which workspace and whether the
 * operator widened it beyond its own workspace. No foreign key on the workspace: the row outlives
 * the workspace row just long enough for core to revoke its token.
 */
export const migration009: Migration = {
  version: 9,
  name: 'fleet',
  up(db) {
    db.exec(`
      CREATE TABLE fleet_credentials (
        workspace_id TEXT PRIMARY KEY,
        token_id TEXT NOT NULL UNIQUE REFERENCES tokens(id),
        all_workspaces INTEGER NOT NULL DEFAULT 0 CHECK (all_workspaces IN (0, 1)),
        created_at TEXT NOT NULL
      );
    `);
  },
};
