import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { operatorContext } from '../handlers';
import { testCore } from '../../../test/helpers/core';
import { ensureTestWorkerImage, realDocker, workspaceTestConfig } from '../../../test/helpers/docker';
import { LABEL, ownerIdFor } from '../docker';
import type { Core } from '..';

const op = operatorContext('internal');
const suffix = randomBytes(3).toString('hex');

/** `docker create` (not started) with the given labels; returns the id. */
const createContainer = (name: string, image: string, labels: Record<string, string>): string =>
  execFileSync(
    'docker',
    [
      'create',
      '--name',
      name,
      '--network',
      'nexus',
      ...Object.entries(labels).flatMap(([k, v]) => ['--label', `${k}=${v}`]),
      image,
    ],
    { encoding: 'utf8' },
  ).trim();

const exists = async (id: string): Promise<boolean> =>
  realDocker()
    .getContainer(id)
    .inspect()
    .then(
      () => true,
      () => false,
    );

describe('containers Nexus does not own', () => {
  let env: Awaited<ReturnType<typeof testCore>>;
  let core: Core;
  let image: string;
  const made: string[] = [];

  beforeAll(async () => {
    image = await ensureTestWorkerImage();
    env = await testCore(workspaceTestConfig());
    core = env.core;
    made.push(
      createContainer(`nexus-test-foreign-${suffix}`, image, {}),
      createContainer(`nexus-test-otherdir-${suffix}`, image, {
        [LABEL.managed]: '1',
        [LABEL.owner]: ownerIdFor('/some/other/data-dir'),
        [LABEL.workspaceId]: 'someone-elses',
      }),
      createContainer(`nexus-test-orphan-${suffix}`, image, {
        [LABEL.managed]: '1',
        [LABEL.owner]: ownerIdFor(env.dataDir),
        [LABEL.workspaceId]: `gone-${suffix}`,
      }),
    );
  }, 900_000);

  afterAll(async () => {
    for (const id of made) execFileSync('docker', ['rm', '-f', id], { stdio: 'ignore' });
    await env.cleanup();
  });

  it('lists only its own labelled containers without a row as orphans', async () => {
    const { orphans } = await core.dispatcher.call('workspaces.orphans', {}, op);
    expect(orphans.map((o) => o.containerId)).toEqual([made[2]]);
    expect(orphans[0]?.name).toBe(`nexus-test-orphan-${suffix}`);
  });

  it('refuses to remove an unlabelled container or one labelled for another data dir', async () => {
    for (const id of [made[0] ?? '', made[1] ?? '']) {
      await expect(core.dispatcher.call('workspaces.removeOrphan', { containerId: id }, op)).rejects.toMatchObject({
        code: 'not_found',
      });
      expect(await exists(id)).toBe(true);
    }
  });

  it('never shows foreign containers as workspaces, and reconnect sweeps leave them alone', async () => {
    expect((await core.dispatcher.call('workspaces.list', {}, op)).workspaces).toEqual([]);
    await core.workspaces.sweep();
    for (const id of made) expect(await exists(id)).toBe(true);
  });

  it('removes its own orphan when the operator asks', async () => {
    await expect(core.dispatcher.call('workspaces.removeOrphan', { containerId: made[2] ?? '' }, op)).resolves.toEqual({
      removed: true,
    });
    expect(await exists(made[2] ?? '')).toBe(false);
    expect((await core.dispatcher.call('workspaces.orphans', {}, op)).orphans).toEqual([]);
    expect(await exists(made[0] ?? '')).toBe(true);
    expect(await exists(made[1] ?? '')).toBe(true);
  });
});
