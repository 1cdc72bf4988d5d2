import { afterAll, describe, expect, it } from 'vitest';
import { openCore } from '../../../test/helpers/core';
import { workspaceTestConfig } from '../../../test/helpers/docker';
import { tempDir } from '../../../test/helpers/temp-dir';
import { operatorContext } from '../handlers';

const op = operatorContext('internal');

describe('a restart in the middle of a create', () => {
  const dir = tempDir();
  afterAll(() => dir.remove());

  it('shows the interrupted workspace as error with the reason instead of creating forever', async () => {
    const first = await openCore(dir.path, workspaceTestConfig());
    // The row as create leaves it before its background job runs; the process then goes away.
    first.workspaces.store.insert({
      name: 'interrupted',
      repoUrl: 'https://example.com/r.git',
      secretId: null,
      image: null,
      volumePrefix: 'nexus-test-restart-',
    });
    await first.dispose();

    const second = await openCore(dir.path, workspaceTestConfig());
    try {
      const ws = await second.dispatcher.call('workspaces.get', { workspace: 'interrupted' }, op);
      expect(ws.status).toBe('error');
      expect(ws.reason).toMatch(/interrupted/);
      await expect(second.dispatcher.call('workspaces.start', { workspace: 'interrupted' }, op)).rejects.toMatchObject({
        code: 'conflict',
      });
      await expect(
        second.dispatcher.call('workspaces.delete', { workspace: 'interrupted' }, op),
      ).resolves.toMatchObject({ deleted: true });
    } finally {
      await second.dispose();
    }
  });
});
