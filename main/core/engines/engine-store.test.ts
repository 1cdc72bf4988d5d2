import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../../../test/helpers/temp-dir';
import { openStore } from '../store/open';
import { EngineStore } from './engine-store';

describe('what an engine carries, as its store reads it from the workspaces and sessions stores', () => {
  const dir = tempDir();

  it('counts workspaces per engine (all, running) and live sessions per engine', () => {
    const db = openStore(join(dir.path, 'nexus.db'));
    const workspace = db.prepare(
      'INSERT INTO workspaces (id, name, repo_url, status, volume, engine, created_at, updated_at) ' +
        "VALUES (?, ?, 'https://x/r.git', ?, 'v', ?, 'now', 'now')",
    );
    workspace.run('w1', 'one', 'running', 'local');
    workspace.run('w2', 'two', 'stopped', 'local');
    workspace.run('w3', 'three', 'running', 'far');
    const session = db.prepare(
      `INSERT INTO sessions (id, workspace_id, name, branch, status, agent_session_id, created_at, updated_at)
       VALUES (?, ?, ?, 'nexus/s', ?, ?, 'now', 'now')`,
    );
    session.run('s1', 'w1', 's1', 'running', 's1');
    session.run('s2', 'w2', 's2', 'creating', 's2');
    session.run('s3', 'w2', 's3', 'exited', 's3');
    session.run('s4', 'w3', 's4', 'running', 's4');
    const store = new EngineStore(db);
    expect(store.workspaceCounts()).toEqual(
      new Map([
        ['local', { all: 2, running: 1 }],
        ['far', { all: 1, running: 1 }],
      ]),
    );
    expect(store.runningSessionsByEngine()).toEqual(
      new Map([
        ['local', 2],
        ['far', 1],
      ]),
    );
    db.close();
  });
});
