import type { Migration } from './types';

/**
 * Usage limits (docs/gateway.md, "Usage limits"): a session the provider refused with a 429 naming its reset is
 * "limited until" then. `limited_until` is the reset, `limited_at` when the gateway last passed such a 429 on (a turn
 * that ended after it ended because of it), `limited_ended_turn` 1 when that 429 ended the agent's turn by itself (Codex's
usage limit); all null when it is not limited. A restarted core re-arms the resume
 * from them.
 */
export const migration034: Migration = {
  version: 34,
  name: 'usage_limits',
  up(db) {
    db.exec(`
      ALTER TABLE sessions ADD COLUMN limited_until TEXT;
      ALTER TABLE sessions ADD COLUMN limited_at TEXT;
      ALTER TABLE sessions ADD COLUMN limited_ended_turn INTEGER;
    `);
  },
};
