import type { Migration } from './types';

/**
 * Egress on remote engines (docs/security.md, "Egress by allow-list"): a confined workspace on a remote engine reaches
 * the proxy through its engine's link, where its source address is lost, so it presents a proxy credential instead.
 * Only the credential's SHA-256 is kept (`proxy_hash`, unique); it goes with the workspace's rule (ON DELETE CASCADE).
 */
export const migration037: Migration = {
  version: 37,
  name: 'egress_credentials',
  up(db) {
    db.exec(`
      ALTER TABLE workspace_egress ADD COLUMN proxy_hash TEXT;
      CREATE UNIQUE INDEX workspace_egress_by_proxy_hash ON workspace_egress (proxy_hash);
    `);
  },
};
