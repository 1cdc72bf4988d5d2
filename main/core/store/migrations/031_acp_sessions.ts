import type { Migration } from './types';

/**
 * Agent kinds that speak ACP (docs/agents.md, "ACP kinds"):
 * - `acp_links`: core's side of each ACP session's conversation with its bridge: which bridge run it talks to, the
 *   last line of it core processed (a core that restarts asks for what follows), the protocol step, and the prompt
 *   in flight (a turn outlives a core restart);
 * - `acp_prompts`: prompts waiting for the running turn to end (messages sent meanwhile; notes after a denial), in
 *   order, so none is lost in a crash;
 * - `acp_updates`: what the agent reported (`session/update` and Nexus's own notes), in order: the structured view
 *   is folded from them at read;
 * - secrets lose their kind CHECK (as sessions' agent kinds did in 026): the contract checks the kind, and a new
 *   kind's key (a Gemini API key) needs no rebuild.
 */
export const migration031: Migration = {
  version: 31,
  name: 'acp_sessions',
  up(db) {
    db.exec(`
      CREATE TABLE acp_links (
        session_id TEXT PRIMARY KEY REFERENCES sessions(id) ON DELETE CASCADE,
        bridge_run TEXT NOT NULL,
        cursor INTEGER NOT NULL DEFAULT 0,
        step TEXT NOT NULL,
        prompt_seq INTEGER NOT NULL DEFAULT 0,
        turn_prompt INTEGER,
        updated_at TEXT NOT NULL
      );
      CREATE TABLE acp_prompts (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
        text TEXT NOT NULL,
        at TEXT NOT NULL
      );
      CREATE INDEX acp_prompts_session ON acp_prompts(session_id, id);
      CREATE TABLE acp_updates (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
        bridge_run TEXT NOT NULL,
        seq INTEGER NOT NULL,
        at TEXT NOT NULL,
        data TEXT NOT NULL,
        UNIQUE (session_id, bridge_run, seq)
      );
      CREATE TABLE secrets_031 (
        id TEXT PRIMARY KEY,
        name TEXT NOT NULL UNIQUE,
        kind TEXT NOT NULL,
        host TEXT NOT NULL,
        last4 TEXT NOT NULL,
        dek_term INTEGER NOT NULL,
        sealed_value BLOB NOT NULL,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL
      );
      INSERT INTO secrets_031 SELECT id, name, kind, host, last4, dek_term, sealed_value, created_at, updated_at FROM secrets;
      DROP TABLE secrets;
      ALTER TABLE secrets_031 RENAME TO secrets;
    `);
  },
};
