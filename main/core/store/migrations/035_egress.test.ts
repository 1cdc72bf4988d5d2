import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { tempDir } from '../../../../test/helpers/temp-dir';
import { EgressStore, REFUSALS_KEPT } from '../../egress';
import { openStore } from '../open';
import { migrations } from '.';

describe('migration 035 egress', () => {
  const dir = tempDir();
  afterEach(() => dir.remove());

  it('keeps a rule and the newest refusals per workspace, and both go with the workspace', () => {
    const db = openStore(join(dir.path, 'a.db'), migrations, 35);
    db.prepare(
      "INSERT INTO workspaces (id, name, repo_url, status, volume, created_at, updated_at) VALUES ('w1', 'w', 'https://x/r.git', 'running', 'v', 'now', 'now')",
    ).run();
    const store = new EgressStore(db);
    expect(store.get('w1')).toBeNull();
    store.set('w1', { confined: true, hosts: null });
    expect(store.get('w1')).toEqual({ confined: true, hosts: null });
    store.set('w1', { confined: true, hosts: ['github.com'] });
    expect(store.get('w1')).toEqual({ confined: true, hosts: ['github.com'] });
    expect(() => db.prepare("UPDATE workspace_egress SET confined = 2 WHERE workspace_id = 'w1'").run()).toThrow(
      /CHECK/,
    );
    for (let i = 0; i < REFUSALS_KEPT + 5; i++)
      store.refuse('w1', { at: `t${i}`, method: 'CONNECT', host: 'evil.test', port: i + 1, reason: 'not listed' });
    const kept = store.refusals('w1', 1000);
    expect(kept).toHaveLength(REFUSALS_KEPT);
    expect(kept[0]?.port).toBe(REFUSALS_KEPT + 5);
    db.prepare("DELETE FROM workspaces WHERE id = 'w1'").run();
    expect(store.get('w1')).toBeNull();
    expect(store.refusals('w1', 10)).toEqual([]);
    db.close();
  });
});
