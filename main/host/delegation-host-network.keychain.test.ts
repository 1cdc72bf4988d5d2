import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectClient, startNexus } from '../../test/helpers/mcp';

/** With `host` networking workers reach the loopback host, so its /api/mcp serves delegated credentials too. */
describe('delegation on host networking', () => {
  let nexus: Awaited<ReturnType<typeof startNexus>>;
  let client: Client;
  beforeAll(async () => {
    nexus = await startNexus({ docker: { network: 'host' }, mcp: { delegationRateLimit: { perMinute: 1, burst: 3 } } });
    await nexus.running.core.delegation.credentials.set({ id: 'ws-host', name: 'hosted' }, 'read');
    const secret = (await nexus.running.core.delegation.credentials.secretOf('ws-host')) ?? '';
    client = await connectClient(nexus.mcpUrl, secret);
  });
  afterAll(async () => {
    await client?.close();
    await nexus.stop();
  });

  it('hands sessions the loopback endpoint and applies the same guard rails there', async () => {
    expect(nexus.running.core.delegation.endpoint()).toBe(nexus.mcpUrl);
    const entry = await nexus.running.core.delegation.mcpEntry('ws-host', 'session-1');
    expect(entry).toMatchObject({ type: 'http', url: nexus.mcpUrl, headers: { 'x-nexus-session': 'session-1' } });
    expect(entry?.headers.Authorization).toMatch(/^Bearer nxs_r_/);

    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toContain('create_session');
    const create = await client.callTool({ name: 'create_session', arguments: { workspace: 'hosted', name: 'x' } });
    expect(create.isError).toBe(true);
    expect(JSON.stringify(create.content)).toContain('[forbidden] create_session needs a write credential');
    // A burst of 3 calls: the refused create counted, two more pass, the fourth is refused.
    for (let i = 0; i < 2; i++)
      expect((await client.callTool({ name: 'get_nexus_info', arguments: {} })).isError).toBeFalsy();
    const refused = await client.callTool({ name: 'get_nexus_info', arguments: {} });
    expect((refused._meta?.['nexus/error'] as { code: string }).code).toBe('rate_limited');
  });
});
