import { afterEach, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { tempDir } from '../../../../test/helpers/temp-dir';
import { openStore } from '../open';
import { migration001 } from './001_foundation';
import { migration004 } from './004_workspaces';
import { migration005 } from './005_sessions';

const addWorkspace = (db: ReturnType<typeof openStore>, id: string, name: string) =>
  db
    .prepare(
      `INSERT INTO workspaces (id, name, repo_url, status, volume, created_at, updated_at) ` +
        `VALUES (?, ?, 'https://example.invalid/r.git', 'running', ?, 't', 't')`,
    )
    .run(id, name, `vol-${id}`);

describe('migration 005 sessions', () => {
  const dir = tempDir();
  afterEach(() => dir.remove());
  const open = () => openStore(join(dir.path, 'a.db'), [migration001, migration004, migration005]);
  const insert = (db: ReturnType<typeof open>, id: string, ws: string, name: string) =>
    db
      .prepare(
        `INSERT INTO sessions (id, workspace_id, name, branch, status, agent_session_id, created_at, updated_at) ` +
          `VALUES (?, ?, ?, ?, 'creating', 'a', 't', 't')`,
      )
      .run(id, ws, name, `nexus/${name}`);

  it('creates the sessions table after workspaces, starting agents in state starting', () => {
    const db = open();
    expect(db.pragma('user_version', { simple: true })).toBe(5);
    addWorkspace(db, 'w1', 'demo');
    insert(db, 's1', 'w1', 'fix-auth');
    expect(db.prepare(`SELECT agent_state, status FROM sessions`).get()).toEqual({
      agent_state: 'starting',
      status: 'creating',
    });
    db.close();
  });

  it('refuses a session of a workspace that does not exist, and a name twice in one workspace', () => {
    const db = open();
    expect(() => insert(db, 's1', 'nope', 'a')).toThrow(/FOREIGN KEY/);
    addWorkspace(db, 'w1', 'demo');
    addWorkspace(db, 'w2', 'other');
    insert(db, 's1', 'w1', 'a');
    expect(() => insert(db, 's2', 'w1', 'a')).toThrow(/UNIQUE/);
    expect(() => insert(db, 's3', 'w2', 'a')).not.toThrow();
    db.close();
  });

  it("removes a workspace's sessions with it", () => {
    const db = open();
    addWorkspace(db, 'w1', 'demo');
    insert(db, 's1', 'w1', 'a');
    db.prepare(`DELETE FROM workspaces WHERE id = 'w1'`).run();
    expect(db.prepare(`SELECT count(*) AS n FROM sessions`).get()).toEqual({ n: 0 });
    db.close();
  });

  it('refuses an unknown status or agent state', () => {
    const db = open();
    addWorkspace(db, 'w1', 'demo');
    insert(db, 's1', 'w1', 'a');
    expect(() => db.prepare(`UPDATE sessions SET status = 'zombie'`).run()).toThrow(/CHECK/);
    expect(() => db.prepare(`UPDATE sessions SET agent_state = 'dancing'`).run()).toThrow(/CHECK/);
    db.close();
  });
});
