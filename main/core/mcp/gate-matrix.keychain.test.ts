import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rawRequest, sampleArgs, startNexus, mintToken, toolCall } from '../../../test/helpers/mcp';
import { READ_CLASS_TOOLS } from '../../../test/helpers/read-tools';
import { tools } from './tools';
import { toolAccess } from './tool';

type Nexus = Awaited<ReturnType<typeof startNexus>>;
const classRank = { read: 0, write: 1, vault: 2 } as const;
const accessRank = { read: 0, write: 1, vault: 2, operator: 3 } as const;

/** Path variants that must never reach a tool: the host routes exactly, case-sensitively, unencoded. */
const pathVariants = [
  '/API/MCP',
  '/Api/Mcp',
  '/api/mcp/',
  '//api/mcp',
  '/api//mcp',
  '/api%2Fmcp',
  '/api/mcp%2F',
  '/%61pi/mcp',
  '/api/./mcp',
  '/api/rpc/../mcp',
  '/api/mcp/.',
  '/api/mcp;x',
];

describe('the /api/mcp gate: token × route × tool', () => {
  let nexus: Nexus;
  const secrets: Record<string, string> = {};
  const ids: Record<string, string> = {};

  beforeAll(async () => {
    nexus = await startNexus();
    for (const cls of ['read', 'write', 'vault'] as const) {
      const t = await mintToken(nexus.running, cls);
      secrets[cls] = t.secret;
      ids[cls] = t.id;
    }
    const expired = nexus.running.core.tokens.store.create('old', 'vault', new Date(Date.now() - 1000));
    secrets.expired = expired.secret;
    const revoked = await mintToken(nexus.running, 'vault', 'gone');
    await nexus.running.core.tokens.revoke(revoked.id);
    secrets.revoked = revoked.secret;
  });
  afterAll(() => nexus.stop());

  const call = (path: string, tool: string, secret?: string) =>
    rawRequest(nexus.running.host.port, {
      path,
      headers: secret ? { authorization: `Bearer ${secret}` } : {},
      body: toolCall(tool, sampleArgs[tool] ?? {}),
    });
  const reachedTool = (tool: string, since: number) =>
    nexus.running.core.audit
      .recent(50)
      .some((r) => r.id > since && r.operation === `mcp:${tool}` && r.outcome !== 'forbidden');
  const lastAuditId = () => nexus.running.core.audit.recent(1)[0]?.id ?? 0;

  it('has a sample call for every tool it publishes', () => {
    expect(Object.keys(sampleArgs).sort()).toEqual(tools.map((t) => t.name).sort());
  });

  for (const holder of ['none', 'expired', 'revoked', 'read', 'write', 'vault'] as const) {
    it(`lets a ${holder} token reach exactly the tools its class allows on /api/mcp, and nothing on any path variant`, async () => {
      const secret = holder === 'none' ? undefined : secrets[holder];
      for (const tool of tools) {
        for (const path of pathVariants) {
          const before = lastAuditId();
          const res = await call(path, tool.name, secret);
          expect(res.status, `${holder} ${tool.name} ${path}`).toBe(404);
          expect(reachedTool(tool.name, before), `${holder} ${tool.name} ${path}`).toBe(false);
        }
        const before = lastAuditId();
        const res = await call('/api/mcp', tool.name, secret);
        if (holder === 'none' || holder === 'expired' || holder === 'revoked') {
          expect(res.status, `${holder} ${tool.name}`).toBe(401);
          expect(String(res.headers['www-authenticate'])).toMatch(/^Bearer realm="nexus-mcp"/);
          if (holder !== 'none') expect(String(res.headers['www-authenticate'])).toContain(`error="invalid_token"`);
          expect(reachedTool(tool.name, before)).toBe(false);
          continue;
        }
        const allowed = classRank[holder] >= accessRank[toolAccess(tool)];
        if (allowed) {
          expect(res.status, `${holder} ${tool.name}`).toBe(200);
          const body = JSON.parse(res.text) as { result?: unknown };
          expect(body.result, `${holder} ${tool.name}`).toBeDefined();
          expect(reachedTool(tool.name, before), `${holder} ${tool.name} audited`).toBe(true);
        } else {
          expect(res.status, `${holder} ${tool.name}`).toBe(403);
          expect(String(res.headers['www-authenticate'])).toContain('error="insufficient_scope"');
          expect(reachedTool(tool.name, before)).toBe(false);
          const row = nexus.running.core.audit.recent(1)[0];
          expect(row).toMatchObject({
            actor: `token:${ids[holder]}`,
            transport: 'mcp',
            operation: `mcp:${tool.name}`,
            outcome: 'forbidden',
          });
        }
      }
    });
  }

  it('lists only the tools of the caller’s class, and the classes nest', async () => {
    const listed: Record<string, string[]> = {};
    for (const cls of ['read', 'write', 'vault'] as const) {
      const res = await rawRequest(nexus.running.host.port, {
        path: '/api/mcp',
        headers: { authorization: `Bearer ${secrets[cls]}` },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
      });
      expect(res.status).toBe(200);
      listed[cls] = (JSON.parse(res.text) as { result: { tools: { name: string }[] } }).result.tools
        .map((t) => t.name)
        .sort();
    }
    expect(listed.read).toEqual(READ_CLASS_TOOLS);
    expect(listed.write).toEqual(
      [
        ...listed.read!,
        'create_session',
        'delete_session',
        'delete_workspace',
        'link_task_to_issue',
        'send_message',
        'stop_workspace',
      ].sort(),
    );
    expect(listed.vault).toEqual(
      [...listed.write!, 'create_workspace', 'push_session', 'set_workspace_tracker', 'start_workspace'].sort(),
    );
  });

  it('refuses a write tool hidden in a JSON-RPC batch from a read token', async () => {
    const body = `[${toolCall('list_workspaces', {}, 1)},${toolCall('delete_workspace', { workspace: 'alpha' }, 2)}]`;
    const res = await rawRequest(nexus.running.host.port, {
      path: '/api/mcp',
      headers: { authorization: `Bearer ${secrets.read}` },
      body,
    });
    expect(res.status).toBe(403);
  });

  it('audits every tool call with the token id, the tool, the outcome and a duration', async () => {
    await call('/api/mcp', 'get_nexus_info', secrets.read);
    const row = nexus.running.core.audit.recent(5).find((r) => r.operation === 'mcp:get_nexus_info');
    expect(row).toMatchObject({ actor: `token:${ids.read}`, transport: 'mcp', outcome: 'ok' });
    expect(row?.durationMs).toBeGreaterThanOrEqual(0);
  });

  it('writes one audit row per tool call, however many operations the tool runs', async () => {
    const since = lastAuditId();
    // get_nexus_info runs three operations (app.info, attention.summary, attention.sessions).
    await call('/api/mcp', 'get_nexus_info', secrets.write);
    await call('/api/mcp', 'list_workspaces', secrets.write);
    const rows = nexus.running.core.audit.recent(20).filter((r) => r.id > since);
    expect(rows.map((r) => r.operation).sort()).toEqual(['mcp:get_nexus_info', 'mcp:list_workspaces']);
  });
});
