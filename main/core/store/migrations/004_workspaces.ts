import type { Migration } from './types';

/** Workspaces: one row per container holding a clone of a repository. */
export const migration004: Migration = {
  version: 4,
  name: 'workspaces',
  up(db) {
    db.exec(`
      CREATE TABLE workspaces (
        id TEXT PRIMARY KEY,
        name TEXT NOT NULL UNIQUE,
        repo_url TEXT NOT NULL,
        secret_id TEXT,
        image TEXT,
        status TEXT NOT NULL CHECK (status IN ('creating', 'running', 'stopped', 'error', 'missing')),
        reason TEXT,
        container_id TEXT,
        volume TEXT NOT NULL,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL
      );
    `);
  },
};
