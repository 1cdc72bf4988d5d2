import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { tempDir } from '../../../../test/helpers/temp-dir';
import { EgressStore } from '../../egress';
import { openStore } from '../open';
import { migrations } from '.';

describe('migration 037 egress credentials', () => {
  const dir = tempDir();
  afterEach(() => dir.remove());

  it('keeps only a hash of a confined workspace’s proxy credential, replaced by the next and gone with the workspace', () => {
    const db = openStore(join(dir.path, 'a.db'), migrations, 37);
    for (const id of ['w1', 'w2', 'w3'])
      db.prepare(
        "INSERT INTO workspaces (id, name, repo_url, status, volume, created_at, updated_at) VALUES (?, ?, 'https://x/r.git', 'running', ?, 'now', 'now')",
      ).run(id, id, `v-${id}`);
    const store = new EgressStore(db);
    store.set('w1', { confined: true, hosts: null });
    store.set('w2', { confined: true, hosts: null });
    store.set('w3', { confined: false, hosts: null });
    const first = store.issueCredential('w1');
    expect(first).toMatch(/^nxe_[A-Za-z0-9_-]{43}$/);
    expect(store.workspaceOfCredential(first)).toBe('w1');
    const stored = db.prepare("SELECT proxy_hash FROM workspace_egress WHERE workspace_id = 'w1'").get() as {
      proxy_hash: string;
    };
    expect(stored.proxy_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(JSON.stringify(db.prepare('SELECT * FROM workspace_egress').all())).not.toContain(first.slice(4));
    // Another workspace's credential is that workspace, never this one; an open workspace gets none.
    const other = store.issueCredential('w2');
    expect(store.workspaceOfCredential(other)).toBe('w2');
    expect(() => store.issueCredential('w3')).toThrow(/not confined/);
    // Editing the list keeps the credential; a new one replaces it; a wrong or ill-shaped one is nobody.
    store.set('w1', { confined: true, hosts: ['github.com'] });
    expect(store.workspaceOfCredential(first)).toBe('w1');
    const second = store.issueCredential('w1');
    expect(store.workspaceOfCredential(first)).toBeNull();
    expect(store.workspaceOfCredential(second)).toBe('w1');
    expect(store.workspaceOfCredential(`${second.slice(0, -1)}${second.endsWith('A') ? 'B' : 'A'}`)).toBeNull();
    expect(store.workspaceOfCredential('nxe_short')).toBeNull();
    // Revoked with the workspace.
    db.prepare("DELETE FROM workspaces WHERE id = 'w1'").run();
    expect(store.workspaceOfCredential(second)).toBeNull();
    db.close();
  });
});
