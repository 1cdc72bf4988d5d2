import type { Migration } from './types';

/**
 * Egress by allow-list (docs/security.md, "Egress by allow-list"):
 * - `workspace_egress`: a workspace confined to the internal network (its only way out the gateway and the egress
 *   proxy), and the operator's allow-list (JSON; null: the defaults, the git host, the registries and the recipe's);
 * - `egress_refusals`: what the proxy refused a workspace (newest kept, older pruned).
 */
export const migration035: Migration = {
  version: 35,
  name: 'egress',
  up(db) {
    db.exec(`
      CREATE TABLE workspace_egress (
        workspace_id TEXT PRIMARY KEY REFERENCES workspaces(id) ON DELETE CASCADE,
        confined INTEGER NOT NULL CHECK (confined IN (0, 1)),
        hosts TEXT,
        updated_at TEXT NOT NULL
      );
      CREATE TABLE egress_refusals (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        workspace_id TEXT NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
        at TEXT NOT NULL,
        method TEXT NOT NULL,
        host TEXT NOT NULL,
        port INTEGER NOT NULL,
        reason TEXT NOT NULL
      );
      CREATE INDEX egress_refusals_by_workspace ON egress_refusals (workspace_id, id);
    `);
  },
};
