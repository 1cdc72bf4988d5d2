import type { Migration } from './types';

/**
 * Review that talks back (docs/sessions.md, "Review that talks back"): a session's checkpoints (one
 * per turn of its agent, one before each restore; the commit itself lives on a hidden ref in the
 * workspace's clone) and the operator's comments on its diff lines. Checkpoints name their session
 * without a foreign key: the module removes their refs from the clone when the session goes, then the
 * rows. Comments go with their session's row. Attempts: one prompt run as N sessions (a group); its
 * members outlive their sessions (the compare view names what was tried); the branches of the attempts not
 * kept wait a week in expiring_branches before they are deleted.
 */
export const migration028: Migration = {
  version: 28,
  name: 'review_talks_back',
  up(db) {
    db.exec(`
      CREATE TABLE session_checkpoints (
        session_id TEXT NOT NULL,
        workspace_id TEXT NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
        seq INTEGER NOT NULL CHECK (seq >= 1),
        kind TEXT NOT NULL CHECK (kind IN ('turn', 'before_restore')),
        turn INTEGER CHECK ((kind = 'turn') = (turn IS NOT NULL)),
        restored_to INTEGER,
        commit_sha TEXT NOT NULL,
        parent_sha TEXT,
        files INTEGER NOT NULL CHECK (files >= 0),
        additions INTEGER NOT NULL CHECK (additions >= 0),
        deletions INTEGER NOT NULL CHECK (deletions >= 0),
        created_at TEXT NOT NULL,
        PRIMARY KEY (session_id, seq)
      );
      CREATE INDEX session_checkpoints_workspace ON session_checkpoints(workspace_id);
      CREATE TABLE review_comments (
        id TEXT PRIMARY KEY,
        session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
        path TEXT NOT NULL,
        start_line INTEGER NOT NULL CHECK (start_line >= 1),
        end_line INTEGER NOT NULL CHECK (end_line >= start_line),
        quote TEXT NOT NULL,
        body TEXT NOT NULL,
        status TEXT NOT NULL CHECK (status IN ('draft', 'sent')),
        sent_at TEXT,
        lines_changed INTEGER CHECK (lines_changed IN (0, 1)),
        created_at TEXT NOT NULL
      );
      CREATE INDEX review_comments_session ON review_comments(session_id, created_at);
      CREATE TABLE attempt_groups (
        id TEXT PRIMARY KEY,
        workspace_id TEXT NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
        name TEXT NOT NULL,
        prompt TEXT NOT NULL,
        kept_session_id TEXT,
        decided_at TEXT,
        created_at TEXT NOT NULL,
        UNIQUE (workspace_id, name)
      );
      CREATE TABLE attempt_members (
        group_id TEXT NOT NULL REFERENCES attempt_groups(id) ON DELETE CASCADE,
        position INTEGER NOT NULL CHECK (position >= 1),
        session_id TEXT NOT NULL,
        name TEXT NOT NULL,
        branch TEXT NOT NULL,
        agent TEXT NOT NULL,
        PRIMARY KEY (group_id, position)
      );
      CREATE INDEX attempt_members_session ON attempt_members(session_id);
      CREATE TABLE expiring_branches (
        workspace_id TEXT NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
        branch TEXT NOT NULL,
        delete_after TEXT NOT NULL,
        PRIMARY KEY (workspace_id, branch)
      );
    `);
  },
};
