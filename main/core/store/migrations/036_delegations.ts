import type { Migration } from './types';

/**
 * Delegations get their own word: `fleet_credentials` (migration 009) becomes `delegations`. "Fleet" is the operator's
 * sessions as a whole; what a workspace's sessions may do with Nexus's own MCP server is its delegation (docs/mcp.md).
 * The delegated secrets in the keychain move to their new name on first read (`CoreSecret.formerly`).
 */
export const migration036: Migration = {
  version: 36,
  name: 'delegations',
  up(db) {
    db.exec('ALTER TABLE fleet_credentials RENAME TO delegations;');
  },
};
