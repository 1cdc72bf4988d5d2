import { auth } from '@modelcontextprotocol/sdk/client/auth.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { coreDb } from '../../test/helpers/core';
import { filesHolding } from '../../test/helpers/disk-scan';
import {
  approveThroughOperator,
  MemoryClaude,
  OTHER_NAME,
  startRemoteNexus,
  type RemoteNexus,
} from '../../test/helpers/remote';

const ping = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' });
const mcpHeaders = (token: string) => ({
  authorization: `Bearer ${token}`,
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
});

describe('OAuth tokens: stored hashed, bound to the canonical MCP URL', () => {
  let nexus: RemoteNexus;
  const claude = new MemoryClaude();
  let code = '';
  beforeAll(async () => {
    nexus = await startRemoteNexus({ via: 'setting' });
    await auth(claude, { serverUrl: nexus.mcpUrl, fetchFn: nexus.fetch });
    ({ code } = await approveThroughOperator(nexus, claude, 'write'));
    await auth(claude, { serverUrl: nexus.mcpUrl, authorizationCode: code, fetchFn: nexus.fetch });
  });
  afterAll(() => nexus.close());

  it('turns public origin mode on from Settings, and says where it came from', async () => {
    const { body } = await nexus.operator<{ result: unknown }>('remote.status');
    expect(body.result).toEqual({ publicOrigin: nexus.origin, source: 'setting', connectorUrl: nexus.mcpUrl });
    const bad = await nexus.operator<{ error: { code: string } }>('remote.setOrigin', {
      publicOrigin: 'http://plain.example',
    });
    expect(bad.body.error.code).toBe('bad_request');
  });

  it('never writes an access token, refresh token or code to disk', () => {
    const secrets = [claude.saved?.access_token, claude.saved?.refresh_token, code].filter(Boolean) as string[];
    expect(secrets).toHaveLength(3);
    expect(filesHolding(nexus.running.core, secrets)).toEqual([]);
    const db = coreDb(nexus.running.core);
    const models = db.prepare('SELECT DISTINCT model FROM oauth_entries ORDER BY model').all() as { model: string }[];
    expect(models.map((m) => m.model)).toEqual(
      expect.arrayContaining(['AccessToken', 'Client', 'Grant', 'RefreshToken']),
    );
  });

  it('audits the registration, the tokens issued and the calls, by grant, without any token', async () => {
    const res = await nexus.fetch(nexus.mcpUrl, {
      method: 'POST',
      headers: mcpHeaders(claude.saved?.access_token ?? ''),
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 3,
        method: 'tools/call',
        params: { name: 'get_nexus_info', arguments: {} },
      }),
    });
    expect(res.status).toBe(200);
    const grant = nexus.running.core.remote.listGrants()[0];
    const rows = nexus.running.core.audit.recent(50).filter((r) => r.actor === `token:oauth:${grant?.id}`);
    expect(rows.map((r) => r.operation)).toContain('mcp:get_nexus_info');
    expect(rows.map((r) => `${r.operation} ${r.outcome}`)).toContain('oauth:token ok');
    const anonymous = nexus.running.core.audit.recent(200).filter((r) => r.actor === 'anonymous');
    expect(anonymous.map((r) => `${r.operation} ${r.outcome}`)).toContain('oauth:register ok');
    expect(JSON.stringify(rows)).not.toContain(claude.saved?.access_token);
  });

  it('takes the token only in the Authorization header, and no foreign Origin', async () => {
    const token = claude.saved?.access_token ?? '';
    const inQuery = await nexus.fetch(`${nexus.mcpUrl}?access_token=${token}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: ping,
    });
    expect(inQuery.status).toBe(400);
    const foreign = await nexus.fetch(nexus.mcpUrl, {
      method: 'POST',
      headers: { ...mcpHeaders(token), origin: 'https://evil.example' },
      body: ping,
    });
    expect(foreign.status).toBe(403);
    const own = await nexus.fetch(nexus.mcpUrl, {
      method: 'POST',
      headers: { ...mcpHeaders(token), origin: nexus.origin },
      body: ping,
    });
    expect(own.status).toBe(200);
  });

  it('refuses a token issued for another audience: the origin moved, the old token is 401', async () => {
    const token = claude.saved?.access_token ?? '';
    expect((await nexus.fetch(nexus.mcpUrl, { method: 'POST', headers: mcpHeaders(token), body: ping })).status).toBe(
      200,
    );
    const moved = `https://${OTHER_NAME}:${nexus.frontPort}`;
    await nexus.operator('remote.setOrigin', { publicOrigin: moved });
    const prm = (await (await nexus.fetch(`${moved}/.well-known/oauth-protected-resource/api/mcp`)).json()) as {
      resource: string;
    };
    expect(prm.resource).toBe(`${moved}/api/mcp`);
    const res = await nexus.fetch(`${moved}/api/mcp`, { method: 'POST', headers: mcpHeaders(token), body: ping });
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toContain(`resource_metadata="${moved}/.well-known/`);
    // The old name is no longer the public origin: the loopback guard refuses its Host.
    expect((await nexus.fetch(nexus.mcpUrl, { method: 'POST', headers: mcpHeaders(token), body: ping })).status).toBe(
      403,
    );
  });

  it('turns the mode off: the public name is refused like any foreign Host', async () => {
    await nexus.operator('remote.setOrigin', { publicOrigin: null });
    const { body } = await nexus.operator<{ result: unknown }>('remote.status');
    expect(body.result).toEqual({ publicOrigin: null, source: 'off', connectorUrl: null });
    const res = await nexus.fetch(`https://${OTHER_NAME}:${nexus.frontPort}/.well-known/oauth-authorization-server`);
    expect(res.status).toBe(403);
  });
});
