import type { Migration } from './types';

/**
 * The usage estimate (docs/gateway.md, "Prices and the estimate"):
 * - `model_prices`: the operator's prices, a row per model pattern (the name the provider reports, or a prefix ending
 *   in `*`) with USD per million input, output, cache-write and cache-read tokens. The shipped list prices live in code
 *   (main/core/gateway/price-list.ts); a row here replaces the list's row of the same pattern or prices a new model.
 * - `model_usage_daily`: the ledger summed per session, UTC day and model (model '' when the provider named none),
 *   kept by a trigger in the ledger's own insert: a request id already counted inserts nothing and so adds nothing.
 *   Totals, estimates, the session list and the CSV read these sums (a few rows a session a day) instead of every
 *   request's row (200,000 rows took 0.1-0.6 s a read on the loaded 2-core machine).
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
      CREATE TABLE model_usage_daily (
        session_id TEXT NOT NULL,
        day TEXT NOT NULL,
        model TEXT NOT NULL,
        workspace_id TEXT NOT NULL,
        agent TEXT NOT NULL,
        task_id TEXT,
        requests INTEGER NOT NULL,
        input_tokens INTEGER NOT NULL,
        output_tokens INTEGER NOT NULL,
        cache_write_tokens INTEGER NOT NULL,
        cache_read_tokens INTEGER NOT NULL,
        PRIMARY KEY (session_id, day, model)
      );
      CREATE INDEX model_usage_daily_day ON model_usage_daily(day);
      CREATE INDEX model_usage_daily_workspace ON model_usage_daily(workspace_id);
      INSERT INTO model_usage_daily
        SELECT session_id, day, COALESCE(model, ''), MAX(workspace_id), MAX(agent), MAX(task_id), COUNT(*),
          SUM(input_tokens), SUM(output_tokens), SUM(cache_write_tokens), SUM(cache_read_tokens)
        FROM model_usage GROUP BY session_id, day, COALESCE(model, '');
      CREATE TRIGGER model_usage_daily_add AFTER INSERT ON model_usage BEGIN
        INSERT INTO model_usage_daily (session_id, day, model, workspace_id, agent, task_id, requests, input_tokens,
            output_tokens, cache_write_tokens, cache_read_tokens)
          VALUES (NEW.session_id, NEW.day, COALESCE(NEW.model, ''), NEW.workspace_id, NEW.agent, NEW.task_id, 1,
            NEW.input_tokens, NEW.output_tokens, NEW.cache_write_tokens, NEW.cache_read_tokens)
          ON CONFLICT (session_id, day, model) DO UPDATE SET
            requests = requests + 1,
            input_tokens = input_tokens + excluded.input_tokens,
            output_tokens = output_tokens + excluded.output_tokens,
            cache_write_tokens = cache_write_tokens + excluded.cache_write_tokens,
            cache_read_tokens = cache_read_tokens + excluded.cache_read_tokens,
            task_id = COALESCE(excluded.task_id, task_id);
      END;
    `);
  },
};
