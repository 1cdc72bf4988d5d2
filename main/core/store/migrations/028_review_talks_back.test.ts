import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { tempDir } from '../../../../test/helpers/temp-dir';
import { openStore } from '../open';
import { migrations } from '.';
import { migration028 } from './028_review_talks_back';

describe('migration 028 review that talks back', () => {
  const dir = tempDir();
  afterEach(() => dir.remove());

  const seed = (db: ReturnType<typeof openStore>) => {
    db.prepare(
      "INSERT INTO workspaces (id, name, repo_url, status, volume, created_at, updated_at) VALUES ('w1', 'w', 'https://x/r.git', 'running', 'v', 'now', 'now')",
    ).run();
    db.prepare(
      `INSERT INTO sessions (id, workspace_id, name, branch, status, agent_session_id, created_at, updated_at)
       VALUES ('s1', 'w1', 's', 'nexus/s', 'running', 'a', 'now', 'now')`,
    ).run();
  };

  it('numbers a session checkpoints once each, a turn checkpoint with its turn and a restore one without', () => {
    const db = openStore(join(dir.path, 'a.db'), migrations, 28);
    seed(db);
    const insert = db.prepare(
      `INSERT INTO session_checkpoints (session_id, workspace_id, seq, kind, turn, restored_to, commit_sha, parent_sha,
         files, additions, deletions, created_at) VALUES ('s1', 'w1', ?, ?, ?, ?, 'c', NULL, 1, 2, 0, 'now')`,
    );
    insert.run(1, 'turn', 1, null);
    insert.run(2, 'before_restore', null, 1);
    expect(() => insert.run(2, 'turn', 2, null)).toThrow(/UNIQUE|PRIMARY/);
    expect(() => insert.run(3, 'turn', null, null)).toThrow(/CHECK/);
    expect(() => insert.run(3, 'before_restore', 2, 1)).toThrow(/CHECK/);
    // A deleted workspace takes its checkpoints' rows with it (its volume, with the refs, is gone too).
    db.prepare("DELETE FROM sessions WHERE id = 's1'").run();
    expect(db.prepare('SELECT COUNT(*) AS n FROM session_checkpoints').get()).toEqual({ n: 2 });
    db.prepare("DELETE FROM workspaces WHERE id = 'w1'").run();
    expect(db.prepare('SELECT COUNT(*) AS n FROM session_checkpoints').get()).toEqual({ n: 0 });
    db.close();
  });

  it('keeps review comments on a line range of their session, and drops them with it', () => {
    const db = openStore(join(dir.path, 'b.db'), migrations, 28);
    seed(db);
    const insert = db.prepare(
      `INSERT INTO review_comments (id, session_id, path, start_line, end_line, quote, body, status, created_at)
       VALUES (?, 's1', 'a.ts', ?, ?, 'x', 'why?', 'draft', 'now')`,
    );
    insert.run('c1', 3, 4);
    expect(() => insert.run('c2', 4, 3)).toThrow(/CHECK/);
    expect(() => insert.run('c3', 0, 1)).toThrow(/CHECK/);
    db.prepare("DELETE FROM sessions WHERE id = 's1'").run();
    expect(db.prepare('SELECT COUNT(*) AS n FROM review_comments').get()).toEqual({ n: 0 });
    db.close();
  });

  it("keeps an attempt group's members past their sessions, and expiring branches once per workspace", () => {
    const db = openStore(join(dir.path, 'c.db'), migrations, 28);
    seed(db);
    db.prepare(
      "INSERT INTO attempt_groups (id, workspace_id, name, prompt, created_at) VALUES ('g1', 'w1', 'try', 'do it', 'now')",
    ).run();
    const member = db.prepare(
      "INSERT INTO attempt_members (group_id, position, session_id, name, branch, agent) VALUES ('g1', ?, 's1', 'try-1', 'nexus/try-1', 'claude')",
    );
    member.run(1);
    expect(() => member.run(1)).toThrow(/UNIQUE|PRIMARY/);
    expect(() => member.run(0)).toThrow(/CHECK/);
    db.prepare("DELETE FROM sessions WHERE id = 's1'").run();
    expect(db.prepare('SELECT COUNT(*) AS n FROM attempt_members').get()).toEqual({ n: 1 });
    const expiring = db.prepare(
      "INSERT INTO expiring_branches (workspace_id, branch, delete_after) VALUES ('w1', 'nexus/try-1', 'later')",
    );
    expiring.run();
    expect(() => expiring.run()).toThrow(/UNIQUE|PRIMARY/);
    db.prepare("DELETE FROM workspaces WHERE id = 'w1'").run();
    expect(db.prepare('SELECT COUNT(*) AS n FROM attempt_members').get()).toEqual({ n: 0 });
    expect(db.prepare('SELECT COUNT(*) AS n FROM expiring_branches').get()).toEqual({ n: 0 });
    db.close();
  });

  it('is registered in order, with its reserved number', () => {
    expect(migration028.version).toBe(28);
    expect(migrations).toContain(migration028);
    const versions = migrations.map((m) => m.version);
    expect(versions).toEqual([...versions].sort((a, b) => a - b));
  });
});
