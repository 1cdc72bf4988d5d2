import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { tempDir } from '../../../test/helpers/temp-dir';
import { openStore } from '../store/open';
import { WorkspaceStore } from './workspace-store';

describe("a workspace's default agent", () => {
  const dir = tempDir();
  afterEach(() => dir.remove());
  const store = () => new WorkspaceStore(openStore(join(dir.path, 'n.db')));
  const base = { repoUrl: 'https://example.com/r.git', secretId: null, image: null, volumePrefix: 'v-' };

  it('is Claude Code unless the create names Codex, and every read shows it', () => {
    const s = store();
    const plain = s.insert({ ...base, name: 'plain' });
    const codex = s.insert({ ...base, name: 'codex', defaultAgent: 'codex' });
    expect(plain.defaultAgent).toBe('claude');
    expect(codex.defaultAgent).toBe('codex');
    expect(s.find('codex')?.defaultAgent).toBe('codex');
    expect(Object.fromEntries(s.list().map((w) => [w.name, w.defaultAgent]))).toEqual({
      plain: 'claude',
      codex: 'codex',
    });
  });

  it('changes when the operator sets another, and a status update keeps it', () => {
    const s = store();
    const w = s.insert({ ...base, name: 'ws' });
    s.setDefaultAgent(w.id, 'codex');
    expect(s.get(w.id).defaultAgent).toBe('codex');
    expect(s.update(w.id, { status: 'running' })?.defaultAgent).toBe('codex');
    s.setDefaultAgent(w.id, 'claude');
    expect(s.find('ws')?.defaultAgent).toBe('claude');
  });
});
