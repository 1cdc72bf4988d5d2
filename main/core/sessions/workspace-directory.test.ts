import { describe, expect, it } from 'vitest';
import type { Workspace } from '../../../shared/contract/workspaces';
import { NexusError } from '../../../shared/errors';
import { workspaceDirectory, workspaceInfo } from './workspace-directory';

const ws = (over: Partial<Workspace>): Workspace => ({
  id: 'w1',
  name: 'demo',
  repoUrl: '/repo',
  secretId: null,
  image: null,
  status: 'running',
  reason: null,
  containerId: 'c1',
  createdAt: 't',
  updatedAt: 't',
  ...over,
});

describe('workspace directory', () => {
  it('counts a workspace as running only when its status says so and it has a container', () => {
    expect(workspaceInfo(ws({}))).toEqual({ id: 'w1', name: 'demo', containerId: 'c1', running: true });
    expect(workspaceInfo(ws({ status: 'stopped' })).running).toBe(false);
    expect(workspaceInfo(ws({ status: 'missing' })).running).toBe(false);
    expect(workspaceInfo(ws({ containerId: null })).running).toBe(false);
  });

  it('answers null for an unknown workspace id and passes other failures on', async () => {
    const dir = workspaceDirectory({
      get: (ref) =>
        ref === 'w1'
          ? Promise.resolve(ws({}))
          : Promise.reject(new NexusError(ref === 'boom' ? 'docker_unavailable' : 'not_found', 'x')),
      list: () => Promise.resolve([ws({})]),
    });
    await expect(dir.get('w1')).resolves.toMatchObject({ id: 'w1' });
    await expect(dir.get('nope')).resolves.toBeNull();
    await expect(dir.get('boom')).rejects.toMatchObject({ code: 'docker_unavailable' });
    await expect(dir.resolve('nope')).rejects.toMatchObject({ code: 'not_found' });
    await expect(dir.list()).resolves.toHaveLength(1);
  });
});
