import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EventMessage } from '../../../shared/contract';
import { testCore } from '../../../test/helpers/core';
import { containersWithLabel, ensureTestWorkerImage, workspaceTestConfig } from '../../../test/helpers/docker';
import { dockerProxy } from '../../../test/helpers/docker-proxy';
import { serveGitRepo } from '../../../test/helpers/git-http-server';
import { waitFor } from '../../../test/helpers/wait';
import type { Core } from '..';
import { operatorContext } from '../handlers';
import { LABEL } from '../docker';

const op = operatorContext('internal');

// Issue 17, item 6: the Docker engine restarting during a workspace create. The engine here is
// shared with other tests, so the restart is simulated at the socket: test/helpers/docker-proxy.ts
// drops every connection and stops answering (cut), then answers again a moment later (restore).
// At each step of the create, the workspace must end running, or error with a reason — never
// stay in creating — and a failed create leaves no container once the engine is back.
describe('the Docker engine restarting during a workspace create', () => {
  let proxy: Awaited<ReturnType<typeof dockerProxy>>;
  let repo: Awaited<ReturnType<typeof serveGitRepo>>;
  let env: Awaited<ReturnType<typeof testCore>>;
  let core: Core;
  const names: string[] = [];

  beforeAll(async () => {
    await ensureTestWorkerImage();
    proxy = await dockerProxy();
    // Slow answers keep the clone running long enough to be cut off.
    repo = await serveGitRepo(null, { delayMs: 800 });
    env = await testCore(workspaceTestConfig({ socketPath: proxy.socketPath }));
    core = env.core;
  }, 600_000);
  afterAll(async () => {
    await proxy?.restore().catch(() => undefined);
    for (const name of names)
      await core?.dispatcher.call('workspaces.delete', { workspace: name }, op).catch(() => undefined);
    await env?.cleanup();
    await proxy?.close();
    await repo?.close();
  });

  for (const step of ['Preparing the worker image', 'Creating the container', 'Cloning the repository']) {
    it(`ends running or error with a reason when the engine restarts at "${step}"`, async () => {
      await waitFor(() => core.status.get().docker.state === 'available', 'docker available', 60_000);
      const name = `wsr-${randomBytes(3).toString('hex')}`;
      names.push(name);
      let cutAt: string | null = null;
      const sub = core.events.subscribe((e: EventMessage) => {
        const p = e.payload as { step?: string; name?: string; id?: string };
        if (cutAt === null && e.name === 'progress' && p.step?.startsWith(step)) {
          cutAt = p.step;
          void proxy.cut().then(() => setTimeout(() => void proxy.restore(), 1_000));
        }
      });
      try {
        const created = await core.dispatcher.call('workspaces.create', { name, repoUrl: repo.url }, op);
        const final = await waitFor(
          () => {
            const w = core.workspaces.store.get(created.id);
            return w.status !== 'creating' ? w : null;
          },
          'the create to finish',
          240_000,
        );
        expect(cutAt, 'the engine was cut at that step').not.toBeNull();
        expect(['running', 'error']).toContain(final.status);
        if (final.status === 'error') {
          expect(final.reason).toMatch(/\w{5}/);
          await waitFor(() => core.status.get().docker.state === 'available', 'docker available again', 60_000);
          await waitFor(
            async () => (await containersWithLabel(`${LABEL.workspaceId}=${created.id}`)).length === 0,
            'no container left by the failed create',
            60_000,
          );
        }
      } finally {
        sub.dispose();
      }
    }, 400_000);
  }
});
