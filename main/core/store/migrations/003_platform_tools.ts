import type { Migration } from './types';

/**
 * Platform tools: agents (tool allow-list, project), runs, tasks, memories (+ FTS5), skills
 * (versioned drafts with scanner findings) and board comments. FTS tables are external-content
 * indexes kept in step by triggers, so search never sees a row the base table does not hold.
 */
/**
 * The three triggers that keep the external-content index `<table>_fts` in step with `table`: its
 * `column`, keyed by the base table's `key`. Written once for runs and memories; the SQL it makes
 * is this migration's, letter for letter, and nothing outside this file uses it.
 */
const ftsTriggers = (table: string, column: string, key: string): string =>
  `CREATE TRIGGER ${table}_ai AFTER INSERT ON ${table} BEGIN
        INSERT INTO ${table}_fts(rowid, ${column}) VALUES (new.${key}, new.${column});
      END;
      CREATE TRIGGER ${table}_ad AFTER DELETE ON ${table} BEGIN
        INSERT INTO ${table}_fts(${table}_fts, rowid, ${column}) VALUES ('delete', old.${key}, old.${column});
      END;
      CREATE TRIGGER ${table}_au AFTER UPDATE OF ${column} ON ${table} BEGIN
        INSERT INTO ${table}_fts(${table}_fts, rowid, ${column}) VALUES ('delete', old.${key}, old.${column});
        INSERT INTO ${table}_fts(rowid, ${column}) VALUES (new.${key}, new.${column});
      END;`;

export const migration003: Migration = {
  version: 3,
  name: 'platform_tools',
  up(db) {
    db.exec(`
      CREATE TABLE agents (
        id TEXT PRIMARY KEY,
        name TEXT NOT NULL,
        project TEXT,
        -- JSON array of tool names; [] = every gated-available tool.
        tools TEXT NOT NULL DEFAULT '[]',
        created_at TEXT NOT NULL
      );

      CREATE TABLE tasks (
        id TEXT PRIMARY KEY,
        parent_id TEXT REFERENCES tasks(id) ON DELETE SET NULL,
        title TEXT NOT NULL,
        body TEXT NOT NULL DEFAULT '',
        status TEXT NOT NULL CHECK (status IN ('planned','ready_for_agent','in_progress','done','cancelled')),
        depends_on TEXT NOT NULL DEFAULT '[]',
        role_hint TEXT,
        project TEXT,
        created_by_run TEXT,
        created_at TEXT NOT NULL
      );
      CREATE INDEX tasks_parent ON tasks(parent_id);

      CREATE TABLE runs (
        id TEXT PRIMARY KEY,
        agent_id TEXT NOT NULL REFERENCES agents(id) ON DELETE CASCADE,
        task_id TEXT REFERENCES tasks(id) ON DELETE SET NULL,
        session_id TEXT,
        status TEXT NOT NULL CHECK (status IN ('running','finished','failed','cancelled')),
        summary TEXT NOT NULL DEFAULT '',
        started_at TEXT NOT NULL,
        ended_at TEXT
      );
      CREATE INDEX runs_agent ON runs(agent_id, status);
      CREATE VIRTUAL TABLE runs_fts USING fts5(summary, content='runs', content_rowid='rowid');
      ${ftsTriggers('runs', 'summary', 'rowid')}

      CREATE TABLE memories (
        id INTEGER PRIMARY KEY,
        uid TEXT NOT NULL UNIQUE,
        content TEXT NOT NULL,
        scope TEXT NOT NULL CHECK (scope IN ('global','project','private')),
        project TEXT,
        agent_id TEXT REFERENCES agents(id) ON DELETE SET NULL,
        run_id TEXT,
        status TEXT NOT NULL CHECK (status IN ('pending','active','rejected')),
        created_at TEXT NOT NULL,
        decided_at TEXT,
        decided_by TEXT
      );
      CREATE INDEX memories_status ON memories(status);
      CREATE VIRTUAL TABLE memories_fts USING fts5(content, content='memories', content_rowid='id');
      ${ftsTriggers('memories', 'content', 'id')}

      CREATE TABLE skills (
        id TEXT PRIMARY KEY,
        slug TEXT NOT NULL,
        version INTEGER NOT NULL,
        name TEXT NOT NULL,
        description TEXT NOT NULL,
        markdown TEXT NOT NULL,
        status TEXT NOT NULL CHECK (status IN ('draft','active','rejected','superseded')),
        findings TEXT NOT NULL DEFAULT '[]',
        agent_id TEXT REFERENCES agents(id) ON DELETE SET NULL,
        run_id TEXT,
        created_at TEXT NOT NULL,
        decided_at TEXT,
        decided_by TEXT,
        UNIQUE (slug, version)
      );
      -- At most one active version per slug.
      CREATE UNIQUE INDEX skills_one_active ON skills(slug) WHERE status = 'active';

      CREATE TABLE board_comments (
        id TEXT PRIMARY KEY,
        task_id TEXT NOT NULL REFERENCES tasks(id) ON DELETE CASCADE,
        run_id TEXT,
        agent_id TEXT,
        body TEXT NOT NULL,
        created_at TEXT NOT NULL
      );
      CREATE INDEX board_comments_task ON board_comments(task_id, created_at);
    `);
  },
};
