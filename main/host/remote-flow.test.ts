import { auth } from '@modelcontextprotocol/sdk/client/auth.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { describe, expect, it } from 'vitest';
import { approveThroughOperator, Browser, CLAUDE_CALLBACK, MemoryClaude } from '../../test/helpers/remote';
import { remoteNexusForSuite } from '../../test/helpers/suite';

describe('Claude on the phone: the whole connector flow through a TLS tunnel stand-in', () => {
  const remote = remoteNexusForSuite();
  const claude = new MemoryClaude();

  it('answers an unauthenticated MCP call with 401 pointing at the protected resource metadata', async () => {
    const res = await remote.nexus.fetch(remote.nexus.mcpUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
    });
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toBe(
      `Bearer resource_metadata="${remote.nexus.origin}/.well-known/oauth-protected-resource/api/mcp"`,
    );
    const prm = (await (
      await remote.nexus.fetch(`${remote.nexus.origin}/.well-known/oauth-protected-resource/api/mcp`)
    ).json()) as {
      resource: string;
      authorization_servers: string[];
    };
    expect(prm).toMatchObject({ resource: remote.nexus.mcpUrl, authorization_servers: [remote.nexus.origin] });
    const as = (await (
      await remote.nexus.fetch(`${remote.nexus.origin}/.well-known/oauth-authorization-server`)
    ).json()) as Record<string, unknown>;
    expect(as).toMatchObject({
      issuer: remote.nexus.origin,
      code_challenge_methods_supported: ['S256'],
      registration_endpoint: `${remote.nexus.origin}/oauth/register`,
      token_endpoint: `${remote.nexus.origin}/oauth/token`,
      revocation_endpoint: `${remote.nexus.origin}/oauth/revoke`,
    });
    // Nothing advertised that the public origin does not route or the gate does not check.
    expect(as.pushed_authorization_request_endpoint).toBeUndefined();
    expect(as.dpop_signing_alg_values_supported).toBeUndefined();
    expect(as.userinfo_endpoint).toBeUndefined();
    expect(as.end_session_endpoint).toBeUndefined();
  });

  it('registers Claude, holds the request until the operator approves in Nexus, and issues a code', async () => {
    expect(await auth(claude, { serverUrl: remote.nexus.mcpUrl, fetchFn: remote.nexus.fetch })).toBe('REDIRECT');
    expect(claude.info?.client_id).toBeTruthy();
    const url = claude.authorizationUrl as URL;
    expect(url.searchParams.get('code_challenge_method')).toBe('S256');
    expect(url.searchParams.get('resource')).toBe(remote.nexus.mcpUrl);

    // Before approval the page only shows a code; nothing goes back to Claude.
    const browser = new Browser(remote.nexus.fetch);
    const first = await browser.get(url);
    // The interaction cookies are signed, Secure, HttpOnly and scoped to this request's own paths.
    expect(first.headers.getSetCookie().length).toBeGreaterThan(0);
    for (const cookie of first.headers.getSetCookie()) expect(cookie).toMatch(/; path=\/oauth\/.*; secure; httponly$/);
    const consent = new URL(first.headers.get('location') ?? '', remote.nexus.origin);
    const waiting = await browser.get(consent);
    expect(waiting.status).toBe(200);
    expect(waiting.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    const page = await waiting.text();
    expect(page).toMatch(/Approve in Nexus/);
    const { body } = await remote.nexus.operator<{
      result: { pending: { clientName: string; redirectHost: string; code: string }[] };
    }>('remote.pending');
    expect(body.result.pending).toHaveLength(1);
    expect(body.result.pending[0]).toMatchObject({ clientName: 'Claude', redirectHost: 'claude.ai' });
    expect(page).toContain(body.result.pending[0]?.code);
    expect((await browser.get(consent)).status).toBe(200);

    const { code } = await approveThroughOperator(remote.nexus, claude, 'read');
    expect(code).toMatch(/^[A-Za-z0-9_-]{20,}$/);
    expect(
      await auth(claude, { serverUrl: remote.nexus.mcpUrl, authorizationCode: code, fetchFn: remote.nexus.fetch }),
    ).toBe('AUTHORIZED');
    expect(claude.saved).toMatchObject({ token_type: 'Bearer', expires_in: 3600 });
    expect(claude.saved?.refresh_token).toBeTruthy();
  });

  it('lets the SDK client list tools and call get_nexus_info with the token', async () => {
    const client = new Client({ name: 'claude-test', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(remote.nexus.mcpUrl), {
        authProvider: claude,
        fetch: remote.nexus.fetch,
      }),
    );
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toContain('get_nexus_info');
    expect(tools.map((t) => t.name)).not.toContain('create_session');
    const info = await client.callTool({ name: 'get_nexus_info', arguments: {} });
    expect(info.isError).toBeFalsy();
    expect(info.structuredContent).toMatchObject({ version: 'test' });
    await client.close();
    const { body } = await remote.nexus.operator<{
      result: { grants: { clientName: string; class: string; lastUsedAt: string | null }[] };
    }>('remote.grants');
    expect(body.result.grants).toEqual([
      expect.objectContaining({ clientName: 'Claude', class: 'read', redirectHost: 'claude.ai' }),
    ]);
    expect(body.result.grants[0]?.lastUsedAt).not.toBeNull();
  });

  it('rotates the refresh token: a new pair works, the old access token keeps its hour', async () => {
    const before = claude.saved;
    expect(await auth(claude, { serverUrl: remote.nexus.mcpUrl, fetchFn: remote.nexus.fetch })).toBe('AUTHORIZED');
    // auth() with valid tokens and a refresh token refreshes them.
    expect(claude.saved?.refresh_token).toBeTruthy();
    expect(claude.saved?.refresh_token).not.toBe(before?.refresh_token);
    expect(claude.saved?.access_token).not.toBe(before?.access_token);
    const client = new Client({ name: 'claude-test', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(remote.nexus.mcpUrl), {
        authProvider: claude,
        fetch: remote.nexus.fetch,
      }),
    );
    expect((await client.callTool({ name: 'get_nexus_info', arguments: {} })).isError).toBeFalsy();
    await client.close();
  });

  it('holds a second authorization from the same browser for the operator too, and completes it', async () => {
    const again = new MemoryClaude();
    const browser = new Browser(remote.nexus.fetch);
    for (let i = 0; i < 2; i++) {
      again.saved = undefined;
      expect(await auth(again, { serverUrl: remote.nexus.mcpUrl, fetchFn: remote.nexus.fetch })).toBe('REDIRECT');
      const { code } = await approveThroughOperator(remote.nexus, again, 'read', browser);
      expect(code, `authorization ${i + 1}`).toMatch(/^[A-Za-z0-9_-]{20,}$/);
      expect(
        await auth(again, { serverUrl: remote.nexus.mcpUrl, authorizationCode: code, fetchFn: remote.nexus.fetch }),
      ).toBe('AUTHORIZED');
    }
  });

  it('registers the redirect it was given: Claude callback only', () => {
    expect(claude.info).toMatchObject({ redirect_uris: [CLAUDE_CALLBACK] });
  });
});
