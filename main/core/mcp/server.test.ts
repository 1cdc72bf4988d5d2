import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testCore } from '../../../test/helpers/core';
import type { Core } from '..';
import type { Caller } from '../handlers';
import { createMcpServer, toolsFor } from './server';
import { toolAccess } from './tool';
import { tools } from './tools';

const token = (access: 'read' | 'write' | 'vault'): Caller => ({
  kind: 'token',
  tokenId: `t-${access}`,
  name: access,
  access,
});

describe('createMcpServer for one caller (behind the gate)', () => {
  let core: Core;
  let cleanup: () => Promise<void>;
  beforeAll(async () => ({ core, cleanup } = await testCore()));
  afterAll(() => cleanup());

  const connect = async (caller: Caller): Promise<Client> => {
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await createMcpServer(core, caller).connect(serverSide);
    const client = new Client({ name: 'in-memory', version: '1' });
    await client.connect(clientSide);
    return client;
  };

  it('takes each tool’s class from the contract operations it calls', () => {
    const byName = Object.fromEntries(tools.map((t) => [t.name, toolAccess(t)]));
    expect(byName).toEqual({
      list_workspaces: 'read',
      get_workspace: 'read',
      create_workspace: 'vault',
      start_workspace: 'vault',
      stop_workspace: 'write',
      delete_workspace: 'write',
      list_sessions: 'read',
      get_session: 'read',
      get_session_diff: 'read',
      push_session: 'vault',
      create_session: 'write',
      delete_session: 'write',
      send_message: 'write',
      set_workspace_tracker: 'vault',
      link_task_to_issue: 'write',
      list_rules: 'read',
      set_rule: 'operator',
      get_nexus_info: 'read',
    });
    expect(toolsFor({ kind: 'operator' })).toHaveLength(tools.length);
  });

  it('does not even register a write tool for a read token, so a call that slipped past the gate fails', async () => {
    const client = await connect(token('read'));
    const r = await client.callTool({ name: 'delete_session', arguments: { session: 'a/b' } });
    expect(r.isError).toBe(true);
    expect(JSON.stringify(r.content)).toMatch(/delete_session not found/);
    await client.close();
  });

  it('lets the dispatcher refuse an operation above the token class even if a tool asked for it', async () => {
    await expect(
      core.dispatcher.call(
        'workspaces.create',
        { name: 'x', repoUrl: '/tmp/x' },
        { transport: 'mcp', caller: token('write') },
      ),
    ).rejects.toMatchObject({ code: 'forbidden' });
  });

  it('offers set_rule to the operator alone: no token class, so no session, may widen its own permissions', async () => {
    for (const cls of ['read', 'write', 'vault'] as const) {
      const client = await connect(token(cls));
      const r = await client.callTool({
        name: 'set_rule',
        arguments: { scope: 'global', action: 'allow', tool: 'any', pattern: '*' },
      });
      expect(r.isError, cls).toBe(true);
      expect(JSON.stringify(r.content)).toMatch(/set_rule not found/);
      await client.close();
      await expect(
        core.dispatcher.call(
          'rules.set',
          { scope: 'global', action: 'allow', tool: 'any', pattern: '*' },
          { transport: 'mcp', caller: token(cls) },
        ),
      ).rejects.toMatchObject({ code: 'forbidden' });
    }
    expect(core.rules.list({}).filter((r) => r.scope !== 'default')).toEqual([]);
    const operator = await connect({ kind: 'operator' });
    const set = await operator.callTool({
      name: 'set_rule',
      arguments: { scope: 'global', action: 'allow', tool: 'shell', pattern: 'make e2e' },
    });
    expect(set.isError).toBeFalsy();
    await operator.close();
    const reader = await connect(token('read'));
    const listed = await reader.callTool({ name: 'list_rules', arguments: {} });
    expect((listed.structuredContent as { rules: { pattern: string }[] }).rules.map((r) => r.pattern)).toContain(
      'make e2e',
    );
    await reader.close();
  });

  it('returns results through the dispatcher, redacted', async () => {
    const secret = 'ghp_abcdefghijklmnopqrstuvwxyz0123456789';
    core.status.set('nats', { state: 'unavailable', reason: `NATS refused GITHUB_TOKEN=${secret}` });
    const client = await connect(token('read'));
    const r = await client.callTool({ name: 'get_nexus_info', arguments: {} });
    expect(JSON.stringify(r)).not.toContain(secret);
    expect((r.structuredContent as { nats: { reason: string } }).nats.reason).toContain('[REDACTED]');
    await client.close();
  });
});
