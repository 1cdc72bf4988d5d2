import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EventMessage } from '../../../shared/contract';
import { testCore } from '../../../test/helpers/core';
import type { Core } from '..';
import { operatorContext, type CallContext } from '../handlers';
import { AGENT_CLI_PACKAGE, AGENT_CLI_VERSION } from './agent-cli';

const op = operatorContext('http');
const reader: CallContext = {
  transport: 'mcp',
  caller: { kind: 'token', tokenId: 't1', name: 'r', access: 'read' },
};

describe('Settings → Agent', () => {
  let core: Core;
  let cleanup: () => Promise<void>;
  const seen: EventMessage[] = [];
  beforeAll(async () => {
    ({ core, cleanup } = await testCore({ agent: { baseUrl: 'http://10.9.8.7:4000' } }));
    await core.dispatcher.call('vault.init', {}, op);
    core.events.subscribe((e) => seen.push(e));
  });
  afterAll(() => cleanup());

  it('shows the pinned CLI, the endpoint, and why sessions do not default to auto behind it', async () => {
    const s = await core.dispatcher.call('agent.get', {}, reader);
    expect(s).toMatchObject({
      cli: { package: AGENT_CLI_PACKAGE, version: AGENT_CLI_VERSION },
      defaultCredentialId: null,
      baseUrl: 'http://10.9.8.7:4000',
      permissionMode: 'default',
    });
    expect(s.permissionModeReason).toMatch(/auto mode cannot run its safety check/);
  });

  it('takes an agent credential as the default, by id or name, and refuses a provider token', async () => {
    const key = await core.dispatcher.call(
      'secrets.create',
      { name: 'Anthropic', kind: 'anthropic_api_key', value: 'sk-ant-api03-agent-service-test-0000' },
      op,
    );
    const gh = await core.dispatcher.call(
      'secrets.create',
      { name: 'gh', kind: 'github', host: 'github.com', value: 'ghp_agentServiceTest000000' },
      op,
    );
    expect(
      (await core.dispatcher.call('agent.setDefaultCredential', { secretId: 'Anthropic' }, op)).defaultCredentialId,
    ).toBe(key.id);
    expect(seen.find((e) => e.name === 'agent.changed')?.payload).toMatchObject({ defaultCredentialId: key.id });
    await expect(core.dispatcher.call('agent.setDefaultCredential', { secretId: gh.id }, op)).rejects.toMatchObject({
      code: 'bad_request',
      message: expect.stringContaining('Anthropic API key or a Claude OAuth token'),
    });
    await expect(core.dispatcher.call('agent.setDefaultCredential', { secretId: null }, reader)).rejects.toMatchObject({
      code: 'forbidden',
    });
    expect((await core.dispatcher.call('agent.get', {}, op)).defaultCredentialId).toBe(key.id);
  });

  it('forgets the default when its secret is deleted', async () => {
    const id = (await core.dispatcher.call('agent.get', {}, op)).defaultCredentialId;
    await core.dispatcher.call('secrets.delete', { id: id ?? '' }, op);
    expect((await core.dispatcher.call('agent.get', {}, op)).defaultCredentialId).toBeNull();
  });
});
