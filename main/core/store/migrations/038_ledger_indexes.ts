import type { Migration } from './types';

/**
 * The ledger's reads moved to its sums (model_usage_daily, migration 033): nothing reads model_usage by workspace or by
 * day any more, and each of those two indexes cost every model request's row a page more to write, on the path
 * before the answer's end goes on (docs/performance.md, "The model gateway": ~30 of ~115 µs a row).
 */
export const migration038: Migration = {
  version: 38,
  name: 'ledger_indexes',
  up(db) {
    db.exec(`
      DROP INDEX model_usage_workspace;
      DROP INDEX model_usage_day;
    `);
  },
};
