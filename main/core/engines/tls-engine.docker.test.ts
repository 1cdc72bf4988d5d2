import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { vaultCore } from '../../../test/helpers/core';
import { workspaceTestConfig } from '../../../test/helpers/docker';
import { startSecondEngine, type SecondEngine } from '../../../test/helpers/second-engine';
import { waitFor } from '../../../test/helpers/wait';
import type { Core } from '..';
import { operatorContext } from '../handlers';

const op = operatorContext('internal');

// Issue 29, item 1: a remote engine by tcp:// with TLS material from the vault. Needs root: the test
// starts a second dockerd with --tlsverify on 127.0.0.1 (test/helpers/second-engine.ts) and its own
// CA, and removes it afterwards.
describe('a remote engine over TLS', () => {
  let remote: SecondEngine;
  let env: Awaited<ReturnType<typeof vaultCore>>;
  let core: Core;
  const ids: Record<string, string> = {};

  beforeAll(async () => {
    remote = await startSecondEngine({ pool: '10.204.0.0/16', tls: true });
    env = await vaultCore(workspaceTestConfig());
    core = env.core;
    const tls = remote.tls;
    if (!tls) throw new Error('no TLS material');
    for (const [name, kind, value] of [
      ['ca', 'tls_certificate', tls.ca],
      ['client-cert', 'tls_certificate', tls.cert],
      ['client-key', 'tls_private_key', tls.key],
    ] as const)
      ids[name] = (await core.dispatcher.call('secrets.create', { name, kind, host: '', value }, op)).id;
  }, 120_000);

  afterAll(async () => {
    try {
      await remote?.dispose();
    } finally {
      await env?.cleanup();
    }
  }, 120_000);

  it('adds the engine with the CA, client certificate and key from the vault, and reads its version and size', async () => {
    const url = remote.tls?.url ?? '';
    const added = await core.dispatcher.call(
      'engines.add',
      { name: 'tls-box', url, caSecretId: ids.ca, certSecretId: ids['client-cert'], tlsKeySecretId: ids['client-key'] },
      op,
    );
    expect(added).toMatchObject({ kind: 'tls', url, hostKeyFingerprint: null });
    const e = await waitFor(async () => {
      const x = (await core.dispatcher.call('engines.list', {}, op)).engines.find((y) => y.name === 'tls-box');
      return x?.state === 'reachable' && x.version ? x : null;
    }, 'the TLS engine reachable');
    const info = (await remote.docker.info()) as { ServerVersion: string; NCPU: number };
    expect(e).toMatchObject({ version: info.ServerVersion, cpus: info.NCPU });
  });

  it('refuses TLS material of the wrong kind and plain tcp without it', async () => {
    const url = remote.tls?.url ?? '';
    await expect(
      core.dispatcher.call(
        'engines.add',
        { name: 'wrong', url, caSecretId: ids['client-key'], certSecretId: ids['client-cert'], tlsKeySecretId: ids.ca },
        op,
      ),
    ).rejects.toMatchObject({ code: 'bad_request' });
    await expect(core.dispatcher.call('engines.add', { name: 'bare', url }, op)).rejects.toMatchObject({
      code: 'bad_request',
    });
  });
});
