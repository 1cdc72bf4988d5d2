import { afterEach, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { tempDir } from '../../../../test/helpers/temp-dir';
import { openStore } from '../open';
import { migration001 } from './001_foundation';
import { migration005 } from './005_sessions';
import type { Migration } from './types';

/** The smallest stand-in for migration 004 (workspaces, on its own branch): the table sessions reference. */
const workspaces004: Migration = {
  version: 4,
  name: 'workspaces (test shape)',
  up: (db) => db.exec(`CREATE TABLE workspaces (id TEXT PRIMARY KEY, name TEXT NOT NULL UNIQUE)`),
};

describe('migration 005 sessions', () => {
  const dir = tempDir();
  afterEach(() => dir.remove());
  const open = () => openStore(join(dir.path, 'a.db'), [migration001, workspaces004, migration005]);
  const insert = (db: ReturnType<typeof open>, id: string, ws: string, name: string) =>
    db
      .prepare(`INSERT INTO sessions (id, workspace_id, name, branch, status, agent_session_id, created_at, updated_at) VALUES (?, ?, ?, ?, 'creating', 'a', 't', 't')`)
      .run(id, ws, name, `nexus/${name}`);

  it('creates the sessions table after workspaces, starting agents in state starting', () => {
    const db = open();
    expect(db.pragma('user_version', { simple: true })).toBe(5);
    db.prepare(`INSERT INTO workspaces (id, name) VALUES ('w1', 'demo')`).run();
    insert(db, 's1', 'w1', 'fix-auth');
    expect(db.prepare(`SELECT agent_state, status FROM sessions`).get()).toEqual({ agent_state: 'starting', status: 'creating' });
    db.close();
  });

  it('refuses a session of a workspace that does not exist, and a name twice in one workspace', () => {
    const db = open();
    expect(() => insert(db, 's1', 'nope', 'a')).toThrow(/FOREIGN KEY/);
    db.prepare(`INSERT INTO workspaces (id, name) VALUES ('w1', 'demo'), ('w2', 'other')`).run();
    insert(db, 's1', 'w1', 'a');
    expect(() => insert(db, 's2', 'w1', 'a')).toThrow(/UNIQUE/);
    expect(() => insert(db, 's3', 'w2', 'a')).not.toThrow();
    db.close();
  });

  it("removes a workspace's sessions with it", () => {
    const db = open();
    db.prepare(`INSERT INTO workspaces (id, name) VALUES ('w1', 'demo')`).run();
    insert(db, 's1', 'w1', 'a');
    db.prepare(`DELETE FROM workspaces WHERE id = 'w1'`).run();
    expect(db.prepare(`SELECT count(*) AS n FROM sessions`).get()).toEqual({ n: 0 });
    db.close();
  });

  it('refuses an unknown status or agent state', () => {
    const db = open();
    db.prepare(`INSERT INTO workspaces (id, name) VALUES ('w1', 'demo')`).run();
    insert(db, 's1', 'w1', 'a');
    expect(() => db.prepare(`UPDATE sessions SET status = 'zombie'`).run()).toThrow(/CHECK/);
    expect(() => db.prepare(`UPDATE sessions SET agent_state = 'dancing'`).run()).toThrow(/CHECK/);
    db.close();
  });
});
