import type { Migration } from './types';

/**
 * Session runs: each session holds the platform run (migration 003) its agent calls platform
 * tools as. Nullable: a session created while NATS was unavailable has none. No foreign key, so a
 * run row outlives its session (run history), and the session's delete ends the run first.
 */
export const migration007: Migration = {
  version: 7,
  name: 'session_runs',
  up(db) {
    db.exec(`ALTER TABLE sessions ADD COLUMN run_id TEXT;`);
  },
};
