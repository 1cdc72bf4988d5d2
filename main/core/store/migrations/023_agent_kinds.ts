import type { Migration } from './types';

/**
 * Agent kinds (docs/agents.md): a session runs Claude Code or Codex.
 * - `sessions.agent`: the kind it was created with (every existing session ran Claude Code);
 * - `sessions.agent_thread_id`: Codex's thread id, learned from its SessionStart hook (`codex queue --thread`,
 *   `codex resume`); null for Claude Code, whose conversation id Nexus chooses up front (`agent_session_id`);
 * - `workspace_agent_defaults`: the kind a workspace's new sessions get when the create names none;
 * - secrets may hold an OpenAI API key (Codex's sign-in): the table is rebuilt to widen its kind check (SQLite
 *   cannot alter a CHECK). The check also lists the kinds migration 021 (remote engines, a parallel branch) adds,
 *   so whichever order the two land in, neither drops the other's secrets;
 * - `agent_settings.codex_secret_id`: the default Codex credential (Settings → Agent).
 */
export const migration023: Migration = {
  version: 23,
  name: 'agent_kinds',
  up(db) {
    db.exec(`
      CREATE TABLE secrets_023 (
        id TEXT PRIMARY KEY,
        name TEXT NOT NULL UNIQUE,
        kind TEXT NOT NULL CHECK (kind IN ('github', 'gitlab', 'generic', 'anthropic_api_key', 'claude_oauth_token',
          'ssh_private_key', 'tls_certificate', 'tls_private_key', 'openai_api_key')),
        host TEXT NOT NULL,
        last4 TEXT NOT NULL,
        dek_term INTEGER NOT NULL,
        sealed_value BLOB NOT NULL,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL
      );
      INSERT INTO secrets_023 SELECT id, name, kind, host, last4, dek_term, sealed_value, created_at, updated_at FROM secrets;
      DROP TABLE secrets;
      ALTER TABLE secrets_023 RENAME TO secrets;
      ALTER TABLE agent_settings ADD COLUMN codex_secret_id TEXT;
      ALTER TABLE sessions ADD COLUMN agent TEXT NOT NULL DEFAULT 'claude' CHECK (agent IN ('claude', 'codex'));
      ALTER TABLE sessions ADD COLUMN agent_thread_id TEXT;
      CREATE TABLE workspace_agent_defaults (
        workspace_id TEXT PRIMARY KEY REFERENCES workspaces(id) ON DELETE CASCADE,
        agent TEXT NOT NULL CHECK (agent IN ('claude', 'codex')),
        updated_at TEXT NOT NULL
      );
    `);
  },
};
