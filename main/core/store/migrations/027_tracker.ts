import type { Migration } from './types';

/**
 * The tracker (docs/tracker.md): a workspace's tracker settings (the API key stays a vault secret, named by id),
 * a task's issue, and the outbox. An outbox row is written in the transaction that stores its board comment or
 * status change, and leaves only as `sent`: `attempts` is raised before each request, so a core killed mid-send
 * looks for the row's marker on the issue before sending again. Sessions picked up from the tracker are
 * remembered per issue, so an issue starts one session however often it is seen.
 */
export const migration027: Migration = {
  version: 27,
  name: 'tracker',
  up(db) {
    db.exec(`
      CREATE TABLE tracker_settings (
        workspace_id TEXT PRIMARY KEY,
        kind TEXT NOT NULL CHECK (kind IN ('redmine', 'github')),
        url TEXT NOT NULL,
        project TEXT NOT NULL,
        secret_id TEXT NOT NULL,
        status_map TEXT NOT NULL DEFAULT '{}',
        pickup TEXT,
        updated_at TEXT NOT NULL
      );
      CREATE TABLE task_issues (
        task_id TEXT PRIMARY KEY REFERENCES tasks(id) ON DELETE CASCADE,
        workspace_id TEXT NOT NULL,
        number INTEGER NOT NULL CHECK (number > 0),
        title TEXT,
        url TEXT NOT NULL,
        linked_at TEXT NOT NULL
      );
      CREATE INDEX task_issues_by_issue ON task_issues (workspace_id, number);
      CREATE TABLE tracker_outbox (
        seq INTEGER PRIMARY KEY AUTOINCREMENT,
        id TEXT NOT NULL UNIQUE,
        task_id TEXT NOT NULL,
        workspace_id TEXT NOT NULL,
        issue INTEGER NOT NULL CHECK (issue > 0),
        kind TEXT NOT NULL CHECK (kind IN ('comment', 'status', 'note')),
        comment_id TEXT UNIQUE,
        body TEXT NOT NULL,
        status TEXT,
        state TEXT NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'sent')),
        attempts INTEGER NOT NULL DEFAULT 0 CHECK (attempts >= 0),
        refused INTEGER NOT NULL DEFAULT 0 CHECK (refused IN (0, 1)),
        next_at TEXT NOT NULL,
        last_error TEXT,
        remote_id TEXT,
        created_at TEXT NOT NULL,
        sent_at TEXT
      );
      CREATE INDEX tracker_outbox_pending ON tracker_outbox (state, workspace_id, issue, seq);
      CREATE TABLE tracker_pickups (
        workspace_id TEXT NOT NULL,
        number INTEGER NOT NULL,
        session_id TEXT,
        picked_at TEXT NOT NULL,
        PRIMARY KEY (workspace_id, number)
      );
    `);
  },
};
