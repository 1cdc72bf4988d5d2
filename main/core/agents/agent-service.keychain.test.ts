import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EventMessage } from '../../../shared/contract';
import { testCore } from '../../../test/helpers/core';
import type { Core } from '..';
import { operatorContext, type CallContext } from '../handlers';
import { AGENT_CLI_PACKAGE, AGENT_CLI_VERSION } from './claude/cli';
import { AGENT_KINDS } from './registry';
import { CODEX_CLI_PACKAGE } from './codex/cli';

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
    ({ core, cleanup } = await testCore({ agent: { kinds: { claude: { baseUrl: 'http://10.9.8.7:4000' } } } }));
    await core.dispatcher.call('vault.init', {}, op);
    core.events.subscribe((e) => seen.push(e));
  });
  afterAll(() => cleanup());

  const claude = async (ctx: CallContext = op) =>
    (await core.dispatcher.call('agent.get', {}, ctx)).kinds.find((k) => k.kind === 'claude');

  it('shows each kind (pinned CLI, credential kinds, endpoint, capabilities) and why sessions do not default to auto', async () => {
    const s = await core.dispatcher.call('agent.get', {}, reader);
    expect(s.kinds.map((k) => k.kind)).toEqual(AGENT_KINDS);
    expect(s.kinds[0]).toMatchObject({
      label: 'Claude Code',
      cli: { package: AGENT_CLI_PACKAGE, version: AGENT_CLI_VERSION },
      credentialKinds: ['anthropic_api_key', 'claude_oauth_token'],
      defaultCredentialId: null,
      baseUrl: 'http://10.9.8.7:4000',
      capabilities: { unansweredPermission: 'stays_in_terminal', messageReceipts: true, structured: false },
    });
    expect(s.kinds[1]).toMatchObject({
      label: 'Codex',
      cli: { package: CODEX_CLI_PACKAGE },
      credentialKinds: ['openai_api_key'],
      baseUrl: null,
      capabilities: { unansweredPermission: 'denied', messageReceipts: false, structured: false },
    });
    // The credential kinds, each once with its label and every kind it signs in (the secret form's list).
    expect(s.credentials).toContainEqual({ kind: 'anthropic_api_key', label: 'Anthropic API key', agents: ['claude'] });
    expect(s.credentials.find((c) => c.kind === 'openai_api_key')?.agents).toEqual(
      AGENT_KINDS.filter((k) => s.kinds.find((i) => i.kind === k)?.credentialKinds.includes('openai_api_key')),
    );
    expect(new Set(s.credentials.map((c) => c.kind)).size).toBe(s.credentials.length);
    expect(s.permissionMode).toBe('default');
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
    const set = (kind: string, secretId: string | null, ctx = op) =>
      core.dispatcher.call('agent.setDefaultCredential', { kind, secretId }, ctx);
    const settings = await set('claude', 'Anthropic');
    expect(settings.kinds.find((k) => k.kind === 'claude')?.defaultCredentialId).toBe(key.id);
    const changed = seen.find((e) => e.name === 'agent.changed')?.payload as {
      kinds: { defaultCredentialId: unknown }[];
    };
    expect(changed.kinds[0]?.defaultCredentialId).toBe(key.id);
    await expect(set('claude', gh.id)).rejects.toMatchObject({
      code: 'bad_request',
      message: expect.stringContaining('Anthropic API key or a Claude OAuth token'),
    });
    // Another kind's credential is not this kind's: an Anthropic key does not sign Codex in.
    await expect(set('codex', key.id)).rejects.toMatchObject({
      code: 'bad_request',
      message: expect.stringContaining('Codex needs an OpenAI API key'),
    });
    // A kind this Nexus has no driver for is a bad request that names the kinds it runs, and changes nothing.
    await expect(set('no-such-kind', key.id)).rejects.toMatchObject({
      code: 'bad_request',
      message: expect.stringContaining(`it runs ${AGENT_KINDS.join(', ')}`),
    });
    await expect(set('claude', null, reader)).rejects.toMatchObject({ code: 'forbidden' });
    // A well-formed kind no driver declares is refused by core (the contract checks only its shape).
    await expect(
      core.dispatcher.call('secrets.create', { name: 'Nope', kind: 'nope_api_key', value: 'nope-0000-abcd' }, op),
    ).rejects.toMatchObject({ code: 'bad_request', message: expect.stringContaining('No secret kind "nope_api_key"') });
    await expect(
      core.dispatcher.call('secrets.create', { name: 'Bad', kind: 'Not A Kind', value: 'nope-0000-abcd' }, op),
    ).rejects.toMatchObject({ code: 'bad_request' });
    expect((await claude())?.defaultCredentialId).toBe(key.id);
    const openai = await core.dispatcher.call(
      'secrets.create',
      { name: 'OpenAI', kind: 'openai_api_key', value: 'sk-proj-agent-service-test-0000' },
      op,
    );
    const both = await set('codex', 'OpenAI');
    expect(both.kinds.map((k) => k.defaultCredentialId).slice(0, 2)).toEqual([key.id, openai.id]);
    expect((await set('codex', null)).kinds[1]?.defaultCredentialId).toBeNull();
  });

  it('forgets the default when its secret is deleted', async () => {
    const id = (await claude())?.defaultCredentialId;
    await core.dispatcher.call('secrets.delete', { id: id ?? '' }, op);
    expect((await claude())?.defaultCredentialId).toBeNull();
  });
});
