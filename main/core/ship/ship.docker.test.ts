import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureTestWorkerImage, realDocker } from '../../../test/helpers/docker';
import { ShipGit, type ShipExec } from './ship-git';
import { ShipReader, type ShipSession } from './ship-diff';
import { join } from 'node:path';
import { tempDir } from '../../../test/helpers/temp-dir';
import { openStore } from '../store/open';
import { WorkspaceRuntime } from '../workspaces/runtime';
import { WorkspaceStore } from '../workspaces/workspace-store';

// A worker container (the real image, uid 1000) holding a clone and one session worktree with a
// commit, an uncommitted edit, a deletion and an untracked file.
const docker = realDocker();
const label = `nexus.test.changes-${randomBytes(4).toString('hex')}`;
let containerId = '';
let session: ShipSession;
let reader: ShipReader;
const dir = tempDir('nexus-changes-');
const db = openStore(join(dir.path, 'nexus.db'));
const runtime = new WorkspaceRuntime({ docker, store: new WorkspaceStore(db) });
const exec: ShipExec = runtime;
const sh = async (script: string): Promise<string> => {
  const r = await runtime.exec({ name: 'changes', containerId }, ['sh', '-c', script]);
  if (r.exitCode !== 0) throw new Error(`${script}: ${r.stderr}`);
  return r.stdout;
};

beforeAll(async () => {
  const image = await ensureTestWorkerImage();
  const c = await docker.createContainer({
    Image: image,
    Entrypoint: ['sleep', 'infinity'],
    Labels: { [label]: '1' },
    User: '1000:1000',
    WorkingDir: '/workspace',
    HostConfig: {
      NetworkMode: 'none',
      Tmpfs: { '/tmp': 'rw,size=64m,mode=1777', '/workspace': 'rw,uid=1000,gid=1000' },
    },
  });
  containerId = c.id;
  await c.start();
  await sh(`set -e; cd /workspace; git init -q -b main .; git config user.email a@x; git config user.name Ada
    printf 'one\\ntwo\\n' > keep.txt; echo bye > gone.txt; git add -A; git commit -qm base
    git worktree add -q -b nexus/s .nexus-worktrees/s HEAD
    cd .nexus-worktrees/s
    seq 1 20000 > big.txt; printf 'one\\nTWO\\n' > keep.txt; git add -A; git commit -qm 'the change'
    echo more >> keep.txt; rm gone.txt; echo fresh > 'new file.txt'`);
  session = {
    id: 's1',
    branch: 'nexus/s',
    worktree: '/workspace/.nexus-worktrees/s',
    workspace: { name: 'w', containerId },
  };
  reader = new ShipReader(new ShipGit(exec, '/workspace'));
}, 180_000);
afterAll(async () => {
  if (containerId) await docker.getContainer(containerId).remove({ force: true });
  db.close();
  dir.remove();
});

describe('session changes in a workspace container', () => {
  it('counts committed and uncommitted changes, untracked files included, against the base', async () => {
    const s = await reader.summary(session);
    expect(s).toMatchObject({ base: 'main', ahead: 1, behind: 0, changedFiles: 4, uncommitted: true, unpushed: null });
    expect(s.additions).toBe(20000 + 2 + 1);
  });

  it('lists commits and pages files, with a note naming the next page', async () => {
    const d = await reader.diff(session, { limit: 2 });
    expect(d.commits.map((c) => c.subject)).toEqual(['the change']);
    expect(d.files.map((f) => f.path)).toEqual(['big.txt', 'gone.txt']);
    expect(d.note).toMatch(/2 more changed files.*offset 2/);
    const next = await reader.diff(session, { offset: 2, limit: 2 });
    expect(next.files.map((f) => [f.path, f.status])).toEqual([
      ['keep.txt', 'modified'],
      ['new file.txt', 'added'],
    ]);
    expect(next.patches.find((p) => p.path === 'new file.txt')?.diff).toContain('+fresh');
    expect(next.patches.find((p) => p.path === 'keep.txt')?.diff).toMatch(/\+TWO\n\+more\n/);
  });

  it('cuts a large file in the page with a note, and gives it whole on request', async () => {
    const page = await reader.diff(session, {});
    const big = page.patches.find((p) => p.path === 'big.txt');
    expect(big?.truncated).toBe(true);
    expect(big?.diff.length).toBeLessThanOrEqual(64 * 1024);
    expect(page.note).toMatch(/cut there; open a file to see it whole/);
    const whole = await reader.diff(session, { file: 'big.txt' });
    expect(whole.files).toHaveLength(1);
    expect(whole.patches[0]?.truncated).toBe(false);
    expect(whole.patches[0]?.diff).toContain('+20000\n');
  });

  it("leaves the agent's index and the container's /tmp as they were", async () => {
    const before = await sh('cd /workspace/.nexus-worktrees/s && git status --porcelain');
    await reader.diff(session, { limit: 1 });
    await reader.summary(session);
    expect(await sh('cd /workspace/.nexus-worktrees/s && git status --porcelain')).toBe(before);
    expect(before).toContain('?? "new file.txt"');
    expect(await sh('ls /tmp')).not.toMatch(/nexus-changes/);
  });
});
