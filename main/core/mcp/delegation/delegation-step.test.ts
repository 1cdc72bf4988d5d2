import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testCore } from '../../../../test/helpers/core';
import type { Core } from '../..';
import { operatorContext, type CallContext } from '../../handlers';

describe("workspaces.create's delegation step", () => {
  let core: Core;
  let cleanup: () => Promise<void>;
  beforeAll(async () => ({ core, cleanup } = await testCore()));
  afterAll(() => cleanup());

  const vaultToken: CallContext = {
    transport: 'mcp',
    caller: { kind: 'token', tokenId: 't1', name: 'ci', access: 'vault' },
  };

  it('refuses a token that chooses a delegated credential, before any workspace is made', async () => {
    const input = { name: 'fleet-choice', repoUrl: '/nonexistent/repo', delegation: { access: 'read' as const } };
    await expect(core.dispatcher.call('workspaces.create', input, vaultToken)).rejects.toMatchObject({
      code: 'forbidden',
      message: expect.stringMatching(/Only the operator chooses/) as unknown,
    });
    const { workspaces } = await core.dispatcher.call('workspaces.list', {}, operatorContext('http'));
    expect(workspaces.map((w) => w.name)).not.toContain('fleet-choice');
  });
});
