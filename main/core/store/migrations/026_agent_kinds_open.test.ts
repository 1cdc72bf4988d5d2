import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { tempDir } from '../../../../test/helpers/temp-dir';
import { openStore } from '../open';
import { migrations } from '.';
import { migration026 } from './026_agent_kinds_open';

describe('migration 026 agent kinds as drivers', () => {
  const dir = tempDir();
  afterEach(() => dir.remove());

  it("keeps each session's kind and each default credential, one row per kind, and no kind CHECK", () => {
    const file = join(dir.path, 'a.db');
    const before = openStore(file, migrations, 25);
    before.exec(`
      INSERT INTO workspaces (id, name, repo_url, volume, status, created_at, updated_at)
        VALUES ('w1', 'ws', 'https://example.com/r.git', 'v1', 'running', 't', 't');
      INSERT INTO sessions (id, workspace_id, name, branch, status, agent_state, agent_session_id, created_at, updated_at,
        agent, agent_thread_id)
        VALUES ('s1', 'w1', 'one', 'nexus/one', 'running', 'idle', 'a1', 't', 't', 'codex', 'thread-1'),
               ('s2', 'w1', 'two', 'nexus/two', 'running', 'idle', 'a2', 't', 't', 'claude', NULL);
      INSERT INTO workspace_agent_defaults (workspace_id, agent, updated_at) VALUES ('w1', 'codex', 't');
      INSERT INTO agent_settings (id, default_secret_id, codex_secret_id, updated_at) VALUES (1, 'k1', 'k2', 'then');
    `);
    before.close();

    const db = openStore(file, migrations, 26);
    expect(db.prepare('SELECT id, agent, agent_thread_id FROM sessions ORDER BY id').all()).toEqual([
      { id: 's1', agent: 'codex', agent_thread_id: 'thread-1' },
      { id: 's2', agent: 'claude', agent_thread_id: null },
    ]);
    expect(db.prepare('SELECT kind, secret_id FROM agent_credentials ORDER BY kind').all()).toEqual([
      { kind: 'claude', secret_id: 'k1' },
      { kind: 'codex', secret_id: 'k2' },
    ]);
    expect(db.prepare("SELECT name FROM sqlite_master WHERE name = 'agent_settings'").all()).toEqual([]);
    // A kind a later registry adds needs no table rebuild.
    db.prepare("UPDATE sessions SET agent = 'another-kind' WHERE id = 's2'").run();
    db.prepare("UPDATE workspace_agent_defaults SET agent = 'another-kind'").run();
    // The workspace's default still goes with its workspace.
    db.prepare("DELETE FROM sessions WHERE workspace_id = 'w1'").run();
    db.prepare("DELETE FROM workspaces WHERE id = 'w1'").run();
    expect(db.prepare('SELECT COUNT(*) AS n FROM workspace_agent_defaults').get()).toEqual({ n: 0 });
    db.close();
  });

  it('is registered after the core-secrets migration, with the next number', () => {
    expect(migrations[migrations.indexOf(migration026) - 1]?.version).toBe(25);
    expect(migration026.version).toBe(26);
  });
});
