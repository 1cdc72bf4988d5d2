import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { tempDir } from '../../../../test/helpers/temp-dir';
import { openStore } from '../open';
import { migrations } from '.';
import { migration027 } from './027_tracker';

describe('migration 027 tracker', () => {
  const dir = tempDir();
  afterEach(() => dir.remove());

  it('keeps one outbox row per board comment, in order, and refuses unknown kinds and states', () => {
    const db = openStore(join(dir.path, 'a.db'), migrations, 27);
    const insert = db.prepare(
      'INSERT INTO tracker_outbox (id, task_id, workspace_id, issue, kind, comment_id, body, state, next_at, ' +
        "created_at) VALUES (?, 't1', 'ws1', 7, ?, ?, 'text', ?, 'now', 'now')",
    );
    insert.run('a', 'comment', 'c1', 'pending');
    insert.run('b', 'status', null, 'pending');
    expect(() => insert.run('c', 'comment', 'c1', 'pending')).toThrow(/UNIQUE/);
    expect(() => insert.run('d', 'reaction', null, 'pending')).toThrow(/CHECK/);
    expect(() => insert.run('e', 'note', null, 'gone')).toThrow(/CHECK/);
    const seqs = db.prepare('SELECT id FROM tracker_outbox ORDER BY seq').all() as { id: string }[];
    expect(seqs.map((r) => r.id)).toEqual(['a', 'b']);
    db.close();
  });

  it('links a task to one issue and forgets the link with the task', () => {
    const db = openStore(join(dir.path, 'b.db'), migrations, 27);
    db.prepare(
      "INSERT INTO tasks (id, title, body, status, depends_on, created_at) VALUES ('t1', 'x', '', 'planned', '[]', 'now')",
    ).run();
    const link = db.prepare(
      "INSERT INTO task_issues (task_id, workspace_id, number, url, linked_at) VALUES ('t1', 'ws1', ?, 'u', 'now')",
    );
    link.run(3);
    expect(() => link.run(4)).toThrow(/UNIQUE/);
    db.prepare("DELETE FROM tasks WHERE id = 't1'").run();
    expect(db.prepare('SELECT count(*) AS n FROM task_issues').get()).toEqual({ n: 0 });
    db.close();
  });

  it('is registered with its number', () => {
    expect(migrations).toContain(migration027);
    expect(migration027.version).toBe(27);
  });
});
