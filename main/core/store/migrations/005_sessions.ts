import type { Migration } from './types';

/**
 * Sessions: one row per git worktree + tmux window. References workspaces (migration 004), so a
 * workspace's sessions go with it. agent_session_id is the agent's conversation id, chosen at
 * launch (--session-id) so a relaunch can --resume it.
 */
export const migration005: Migration = {
  version: 5,
  name: 'sessions',
  up(db) {
    db.exec(`
      CREATE TABLE sessions (
        id TEXT PRIMARY KEY,
        workspace_id TEXT NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
        name TEXT NOT NULL,
        branch TEXT NOT NULL,
        status TEXT NOT NULL CHECK (status IN ('creating', 'running', 'exited', 'error')),
        reason TEXT,
        agent_state TEXT NOT NULL DEFAULT 'starting'
          CHECK (agent_state IN ('starting', 'working', 'waiting_permission', 'waiting_input', 'idle', 'exited')),
        agent_state_at TEXT,
        agent_message TEXT,
        agent_session_id TEXT NOT NULL,
        window_id TEXT,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL,
        UNIQUE (workspace_id, name)
      );
      CREATE INDEX sessions_workspace ON sessions(workspace_id);
    `);
  },
};
