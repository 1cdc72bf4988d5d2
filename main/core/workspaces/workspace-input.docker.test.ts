import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { operatorContext } from '../handlers';
import { testCore } from '../../../test/helpers/core';
import { containersWithLabel, workspaceTestConfig } from '../../../test/helpers/docker';
import { LABEL, ownerIdFor } from '../docker';
import type { Core } from '..';

const op = operatorContext('internal');

describe('workspace input checks', () => {
  let env: Awaited<ReturnType<typeof testCore>>;
  let core: Core;
  const name = `wsi-${randomBytes(3).toString('hex')}`;

  beforeAll(async () => {
    env = await testCore(workspaceTestConfig());
    core = env.core;
    await core.dispatcher.call('vault.init', {}, op);
  });
  afterAll(() => env.cleanup());

  const expectNothingChanged = async (): Promise<void> => {
    expect((await core.dispatcher.call('workspaces.list', {}, op)).workspaces).toEqual([]);
    expect(await containersWithLabel(`${LABEL.owner}=${ownerIdFor(env.dataDir)}`)).toEqual([]);
  };

  it.each([
    ['a URL that does not parse', 'not a url'],
    ['an ssh URL', 'ssh://git@example.com/owner/repo.git'],
    ['a file URL', 'file:///etc'],
    ['credentials inside the URL', 'https://user:hunter2secret@example.com/repo.git'],
    ['something git would read as an option', '--upload-pack=touch /tmp/x'],
  ])('rejects %s as bad_request and creates nothing', async (_what, repoUrl) => {
    await expect(core.dispatcher.call('workspaces.create', { name, repoUrl }, op)).rejects.toMatchObject({
      code: 'bad_request',
    });
    await expectNothingChanged();
  });

  it('rejects a name that is not lowercase letters, digits and dashes', async () => {
    await expect(
      core.dispatcher.call('workspaces.create', { name: 'Bad Name', repoUrl: 'https://example.com/r.git' }, op),
    ).rejects.toMatchObject({ code: 'bad_request' });
    await expectNothingChanged();
  });

  it('rejects an unknown secret as not_found and creates nothing', async () => {
    await expect(
      core.dispatcher.call(
        'workspaces.create',
        { name, repoUrl: 'https://example.com/r.git', secretId: 'no-such-secret' },
        op,
      ),
    ).rejects.toMatchObject({ code: 'not_found' });
    await expectNothingChanged();
  });

  it('rejects a secret bound to another host as bad_request and creates nothing', async () => {
    const { id } = await core.dispatcher.call(
      'secrets.create',
      { name: 'other host', kind: 'github', host: 'github.com', value: 'ghp_notUsedAnywhere0123456789abcdefABCD' },
      op,
    );
    await expect(
      core.dispatcher.call(
        'workspaces.create',
        { name, repoUrl: 'https://gitlab.example.com/r.git', secretId: id },
        op,
      ),
    ).rejects.toMatchObject({
      code: 'bad_request',
      message: expect.stringMatching(/github\.com/),
    });
    await expectNothingChanged();
  });

  it('refuses with vault_locked while the vault is locked and creates nothing', async () => {
    const { id } = await core.dispatcher.call(
      'secrets.create',
      { name: 'locked one', kind: 'generic', host: '', value: 'a-value-for-the-lock-test' },
      op,
    );
    await core.dispatcher.call('vault.lock', {}, op);
    try {
      await expect(
        core.dispatcher.call('workspaces.create', { name, repoUrl: 'https://example.com/r.git', secretId: id }, op),
      ).rejects.toMatchObject({ code: 'vault_locked' });
      await expectNothingChanged();
    } finally {
      await core.dispatcher.call('vault.unlock', {}, op);
    }
  });

  it('rejects an image the engine does not have and creates nothing', async () => {
    await expect(
      core.dispatcher.call(
        'workspaces.create',
        { name, repoUrl: 'https://example.com/r.git', image: `nexus-no-such-image:${name}` },
        op,
      ),
    ).rejects.toMatchObject({ code: 'bad_request' });
    await expectNothingChanged();
  });

  it('answers not_found for a workspace that does not exist', async () => {
    for (const o of ['workspaces.get', 'workspaces.start', 'workspaces.stop', 'workspaces.delete'] as const) {
      await expect(core.dispatcher.call(o, { workspace: 'nope' }, op)).rejects.toMatchObject({ code: 'not_found' });
    }
  });

  it('deletes a workspace only after the jobs queued before it (a session create, say) have finished', async () => {
    const row = core.workspaces.store.insert({
      name,
      repoUrl: 'https://example.com/r.git',
      secretId: null,
      image: null,
      volumePrefix: 'nexus-test-',
    });
    core.workspaces.store.update(row.id, { status: 'stopped' });
    let release = (): void => undefined;
    const order: string[] = [];
    const create = core.workspaces.runtime.run(row.id, async () => {
      await new Promise<void>((r) => (release = r));
      order.push(core.workspaces.store.find(row.id) ? 'create saw its workspace' : 'create found it gone');
    });
    const deleted = core.dispatcher.call('workspaces.delete', { workspace: name }, op).then((r) => {
      order.push('deleted');
      return r;
    });
    await new Promise((r) => setImmediate(r));
    expect(core.workspaces.store.find(name)).not.toBeNull();
    release();
    await create;
    await expect(deleted).resolves.toMatchObject({ deleted: true, id: row.id });
    expect(order).toEqual(['create saw its workspace', 'deleted']);
    expect(core.workspaces.store.find(name)).toBeNull();
  });

  it('keeps workspace creation behind the vault class: a write token is refused', async () => {
    const writer = {
      transport: 'mcp' as const,
      caller: { kind: 'token' as const, tokenId: 't', name: 't', access: 'write' as const },
    };
    await expect(
      core.dispatcher.call('workspaces.create', { name, repoUrl: 'https://example.com/r.git' }, writer),
    ).rejects.toMatchObject({ code: 'forbidden' });
    await expect(
      core.dispatcher.call(
        'workspaces.removeOrphan',
        { containerId: 'x' },
        { ...writer, caller: { ...writer.caller, access: 'vault' as const } },
      ),
    ).rejects.toMatchObject({ code: 'forbidden' });
    await expectNothingChanged();
  });
});
