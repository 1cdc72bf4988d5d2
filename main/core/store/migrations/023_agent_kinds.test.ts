import { afterEach, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { tempDir } from '../../../../test/helpers/temp-dir';
import { openStore } from '../open';
import { migrations } from '.';

describe('migration 023 agent kinds', () => {
  const dir = tempDir();
  afterEach(() => dir.remove());

  it('keeps every existing session on Claude Code and every secret, and takes an OpenAI API key', () => {
    const file = join(dir.path, 'a.db');
    const before = openStore(
      file,
      migrations.filter((m) => m.version < 23),
    );
    before
      .prepare(
        `INSERT INTO workspaces (id, name, repo_url, volume, status, created_at, updated_at)
         VALUES ('w1', 'ws', 'https://example.com/r.git', 'v1', 'running', 't', 't')`,
      )
      .run();
    before
      .prepare(
        `INSERT INTO secrets (id, name, kind, host, last4, dek_term, sealed_value, created_at, updated_at)
         VALUES ('k1', 'claude', 'anthropic_api_key', '', 'abcd', 1, x'00', 't', 't')`,
      )
      .run();
    before
      .prepare(
        `INSERT INTO sessions (id, workspace_id, name, branch, status, agent_state, agent_session_id, created_at, updated_at)
         VALUES ('s1', 'w1', 'one', 'nexus/one', 'running', 'idle', 'a1', 't', 't')`,
      )
      .run();
    before.close();

    const db = openStore(file, migrations, 23);
    expect(db.prepare(`SELECT agent, agent_thread_id FROM sessions`).all()).toEqual([
      { agent: 'claude', agent_thread_id: null },
    ]);
    expect(() => db.prepare(`UPDATE sessions SET agent = 'gemini'`).run()).toThrow(/CHECK/);
    expect(db.prepare(`SELECT id, kind, sealed_value FROM secrets`).all()).toEqual([
      { id: 'k1', kind: 'anthropic_api_key', sealed_value: Buffer.from([0]) },
    ]);
    db.prepare(
      `INSERT INTO secrets (id, name, kind, host, last4, dek_term, sealed_value, created_at, updated_at)
       VALUES ('k2', 'openai', 'openai_api_key', '', 'wxyz', 1, x'00', 't', 't')`,
    ).run();
    db.prepare(
      `INSERT INTO workspace_agent_defaults (workspace_id, agent, updated_at) VALUES ('w1', 'codex', 't')`,
    ).run();
    db.prepare(`DELETE FROM workspaces WHERE id = 'w1'`).run();
    expect(db.prepare(`SELECT count(*) AS n FROM workspace_agent_defaults`).get()).toEqual({ n: 0 });
    db.close();
  });
});
