import { afterEach, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { tempDir } from '../../../../test/helpers/temp-dir';
import { openStore } from '../open';
import { migration001 } from './001_foundation';
import { migration004 } from './004_workspaces';
import { migration005 } from './005_sessions';
import { migration007 } from './007_session_runs';

describe('migration 007 session runs', () => {
  const dir = tempDir();
  afterEach(() => dir.remove());

  it('adds a nullable run_id to sessions, keeping the rows already there', () => {
    const file = join(dir.path, 'a.db');
    const before = openStore(file, [migration001, migration004, migration005]);
    before
      .prepare(
        `INSERT INTO workspaces (id, name, repo_url, status, volume, created_at, updated_at) ` +
          `VALUES ('w1', 'demo', 'https://example.invalid/r.git', 'running', 'v', 't', 't')`,
      )
      .run();
    before
      .prepare(
        `INSERT INTO sessions (id, workspace_id, name, branch, status, agent_session_id, created_at, updated_at) ` +
          `VALUES ('s1', 'w1', 'a', 'nexus/a', 'running', 'x', 't', 't')`,
      )
      .run();
    before.close();

    const db = openStore(file, [migration001, migration004, migration005, migration007]);
    expect(db.pragma('user_version', { simple: true })).toBe(7);
    expect(db.prepare(`SELECT id, run_id FROM sessions`).get()).toEqual({ id: 's1', run_id: null });
    db.prepare(`UPDATE sessions SET run_id = 'r1' WHERE id = 's1'`).run();
    expect(db.prepare(`SELECT run_id FROM sessions`).get()).toEqual({ run_id: 'r1' });
    db.close();
  });
});
