import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { tempDir } from '../../../../test/helpers/temp-dir';
import { openStore } from '../open';
import { migrations } from '.';

describe('migration 029 approval rules', () => {
  const dir = tempDir();
  afterEach(() => dir.remove());

  it('keeps a rule to its scope, and a workspace or session takes its rules with it', () => {
    const db = openStore(join(dir.path, 'a.db'), migrations, 29);
    db.prepare(
      "INSERT INTO workspaces (id, name, repo_url, status, volume, created_at, updated_at) VALUES ('w1', 'w', 'https://x/r.git', 'running', 'v', 'now', 'now')",
    ).run();
    db.prepare(
      `INSERT INTO sessions (id, workspace_id, name, branch, status, agent_session_id, created_at, updated_at)
       VALUES ('s1', 'w1', 's', 'nexus/s', 'running', 'a', 'now', 'now')`,
    ).run();
    const insert = db.prepare(
      `INSERT INTO approval_rules (id, scope, workspace_id, session_id, action, tool, pattern, source, created_by,
         created_at) VALUES (?, ?, ?, ?, 'allow', 'shell', 'npm test', 'operator', 'operator', 'now')`,
    );
    insert.run('g', 'global', null, null);
    insert.run('w', 'workspace', 'w1', null);
    insert.run('s', 'session', 'w1', 's1');
    expect(() => insert.run('bad1', 'global', 'w1', null)).toThrow(/CHECK/);
    expect(() => insert.run('bad2', 'workspace', null, null)).toThrow(/CHECK/);
    expect(() => insert.run('bad3', 'workspace', 'w1', 's1')).toThrow(/CHECK/);
    expect(() =>
      db
        .prepare(
          `INSERT INTO approval_rules (id, scope, action, tool, pattern, source, created_by, created_at)
           VALUES ('d', 'global', 'allow', 'shell', 'x', 'default', 'operator', 'now')`,
        )
        .run(),
    ).toThrow(/CHECK/);
    const ids = () =>
      (db.prepare('SELECT id FROM approval_rules ORDER BY id').all() as { id: string }[]).map((r) => r.id);
    db.prepare("DELETE FROM sessions WHERE id = 's1'").run();
    expect(ids()).toEqual(['g', 'w']);
    db.prepare("DELETE FROM workspaces WHERE id = 'w1'").run();
    expect(ids()).toEqual(['g']);
    db.close();
  });
});
