import type { Migration } from './types';

/**
 * The repository's own recipe and each session's setup, run and ports (docs/workspaces.md, "The repo's recipe"):
 * - `workspace_recipes`: the devcontainer.json a workspace was built from (parsed), its image and what was ignored;
 * - `workspace_session_files`: files placed in each new worktree (0600): literal content or a vault secret's value;
 * - `session_setups`: a session's setup state (running, ok, failed, skipped) and the tail of its output;
 * - `session_ports`: each session's block of ports (PORT and NEXUS_PORTS), unique per engine.
 */
export const migration032: Migration = {
  version: 32,
  name: 'repo_recipe',
  up(db) {
    db.exec(`
      CREATE TABLE workspace_recipes (
        workspace_id TEXT PRIMARY KEY REFERENCES workspaces(id) ON DELETE CASCADE,
        file TEXT NOT NULL,
        recipe TEXT NOT NULL,
        image TEXT,
        notes TEXT NOT NULL,
        created_at TEXT NOT NULL
      );
      CREATE TABLE workspace_session_files (
        workspace_id TEXT NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
        path TEXT NOT NULL,
        content TEXT,
        secret_id TEXT,
        PRIMARY KEY (workspace_id, path)
      );
      CREATE TABLE session_setups (
        session_id TEXT PRIMARY KEY REFERENCES sessions(id) ON DELETE CASCADE,
        state TEXT NOT NULL,
        exit_code INTEGER,
        output TEXT NOT NULL DEFAULT '',
        updated_at TEXT NOT NULL
      );
      CREATE TABLE session_ports (
        session_id TEXT PRIMARY KEY REFERENCES sessions(id) ON DELETE CASCADE,
        engine TEXT NOT NULL,
        first_port INTEGER NOT NULL,
        UNIQUE (engine, first_port)
      );
    `);
  },
};
