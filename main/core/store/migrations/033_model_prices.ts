import type { Migration } from './types';

/**
 * The operator's model prices (docs/gateway.md, "Prices"): `model_prices` holds a row per model pattern (the name the
 * provider reports, or a prefix ending in `*`) with USD per million input, output, cache-write and cache-read tokens.
 * The shipped list prices live in code (main/core/gateway/price-list.ts); a row here replaces the list's row of the
 * same pattern, or prices a model the list has none for.
 */
export const migration033: Migration = {
  version: 33,
  name: 'model_prices',
  up(db) {
    db.exec(`
      CREATE TABLE model_prices (
        model TEXT PRIMARY KEY CHECK (length(model) BETWEEN 1 AND 100),
        input_usd REAL NOT NULL CHECK (input_usd >= 0),
        output_usd REAL NOT NULL CHECK (output_usd >= 0),
        cache_write_usd REAL NOT NULL CHECK (cache_write_usd >= 0),
        cache_read_usd REAL NOT NULL CHECK (cache_read_usd >= 0),
        updated_at TEXT NOT NULL
      );
      CREATE INDEX model_usage_model ON model_usage(session_id, day, model);
    `);
  },
};
