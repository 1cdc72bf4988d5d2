import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EventMessage } from '../../../shared/contract';
import { operatorContext } from '../handlers';
import { testCore } from '../../../test/helpers/core';
import { dockerProxy } from '../../../test/helpers/docker-proxy';
import {
  containersWithLabel,
  ensureTestWorkerImage,
  realDocker,
  workspaceTestConfig,
} from '../../../test/helpers/docker';
import { serveGitRepo } from '../../../test/helpers/git-http-server';
import { waitFor } from '../../../test/helpers/wait';
import { LABEL } from '../docker';
import type { Core } from '..';

const op = operatorContext('internal');

describe('the Docker engine going away', () => {
  const token = `tok${randomBytes(20).toString('hex')}`;
  const name = `wsd-${randomBytes(3).toString('hex')}`;
  const seen: EventMessage[] = [];
  let proxy: Awaited<ReturnType<typeof dockerProxy>>;
  let repo: Awaited<ReturnType<typeof serveGitRepo>>;
  let env: Awaited<ReturnType<typeof testCore>>;
  let core: Core;

  beforeAll(async () => {
    await ensureTestWorkerImage();
    proxy = await dockerProxy();
    // Each HTTP answer takes a while, so the clone is still running when the engine goes away.
    repo = await serveGitRepo(token, { delayMs: 1500 });
    env = await testCore(workspaceTestConfig({ socketPath: proxy.socketPath }));
    core = env.core;
    core.events.subscribe((e) => seen.push(e));
    await core.dispatcher.call('vault.init', {}, op);
  }, 900_000);

  afterAll(async () => {
    await proxy.restore().catch(() => undefined);
    await env.cleanup();
    await proxy.close();
    await repo.close();
  });

  it('fails a create cut off mid-clone with a clear error and leaves no container once the engine is back', async () => {
    const secretId = (
      await core.dispatcher.call('secrets.create', { name: 'token', kind: 'github', host: '', value: token }, op)
    ).id;
    const created = await core.dispatcher.call('workspaces.create', { name, repoUrl: repo.url, secretId }, op);
    // Wait until the container exists and the clone has begun, then make the daemon vanish.
    await waitFor(
      () =>
        seen.some((e) => e.name === 'progress' && (e.payload as { step: string }).step === 'Cloning the repository'),
      'the clone to start',
      120_000,
    );
    expect(await containersWithLabel(`${LABEL.workspaceId}=${created.id}`)).toHaveLength(1);
    await proxy.cut();
    await core.workspaces.idle();

    const failed = await core.dispatcher.call('workspaces.get', { workspace: name }, op);
    expect(failed.status).toBe('error');
    expect(failed.reason).toMatch(/Docker is unavailable/);
    expect(failed.containerId).toBeNull();
    await waitFor(() => core.status.get().docker.state === 'unavailable', 'docker unavailable on the status board');
    await expect(
      core.dispatcher.call('workspaces.create', { name: `${name}-2`, repoUrl: repo.url }, op),
    ).rejects.toMatchObject({ code: 'docker_unavailable' });
    await expect(core.dispatcher.call('workspaces.stop', { workspace: name }, op)).rejects.toMatchObject({
      code: 'docker_unavailable',
    });
    expect(core.workspaces.store.find(`${name}-2`)).toBeNull();

    // The engine returns: Nexus reconnects by itself and removes what the cut-off create left behind.
    await proxy.restore();
    await waitFor(() => core.status.get().docker.state === 'available', 'docker available again', 30_000);
    await waitFor(
      async () => (await containersWithLabel(`${LABEL.workspaceId}=${created.id}`)).length === 0,
      'the leftover container to be removed',
      30_000,
    );
    const volumesLeft = async (): Promise<number> =>
      ((await realDocker().listVolumes({ filters: { label: [`${LABEL.workspaceId}=${created.id}`] } })).Volumes ?? [])
        .length;
    await waitFor(async () => (await volumesLeft()) === 0, 'the leftover volume to be removed', 30_000);
    expect((await core.dispatcher.call('workspaces.get', { workspace: name }, op)).status).toBe('error');
    expect((await core.dispatcher.call('workspaces.orphans', {}, op)).orphans).toEqual([]);
    await expect(core.dispatcher.call('workspaces.delete', { workspace: name }, op)).resolves.toMatchObject({
      deleted: true,
    });
    expect(JSON.stringify(seen)).not.toContain(token);
  }, 300_000);
});
