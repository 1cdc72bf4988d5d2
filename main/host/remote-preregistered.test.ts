import { readdirSync } from 'node:fs';
import { auth } from '@modelcontextprotocol/sdk/client/auth.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { coreDb } from '../../test/helpers/core';
import { filesHolding } from '../../test/helpers/disk-scan';
import {
  approveThroughOperator,
  Browser,
  CLAUDE_CALLBACK,
  MemoryClaude,
  startRemoteNexus,
  type RemoteNexus,
} from '../../test/helpers/remote';

interface Made {
  clientId: string;
  clientSecret: string;
  redirectUris: string[];
}

const basic = (id: string, secret: string) =>
  `Basic ${Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`).toString('base64')}`;

const mcpHeaders = (token: string) => ({
  authorization: `Bearer ${token}`,
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
});

describe("A pre-registered client for Claude's advanced settings (client id and secret)", () => {
  let nexus: RemoteNexus;
  let made: Made;
  const claude = new MemoryClaude();
  /** The token requests Claude's side sent, to see how it authenticated. */
  const tokenRequests: { authorization: string | null; body: string }[] = [];
  const recording: typeof fetch = async (input, init) => {
    const url = input instanceof Request ? input.url : String(input);
    if (url.endsWith('/oauth/token'))
      tokenRequests.push({
        authorization: new Headers(init?.headers).get('authorization'),
        body: init?.body instanceof URLSearchParams ? init.body.toString() : String(init?.body ?? ''),
      });
    return nexus.fetch(input, init);
  };
  const token = (fields: Record<string, string>, authorization?: string) =>
    nexus.fetch(`${nexus.origin}/oauth/token`, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        ...(authorization ? { authorization } : {}),
      },
      body: new URLSearchParams(fields).toString(),
    });

  beforeAll(async () => {
    nexus = await startRemoteNexus();
  });
  afterAll(() => nexus.close());

  it('makes a client id and secret through the operator API, lists the client but never its secret', async () => {
    const res = await nexus.operator<{ result: Made }>('remote.createClient');
    expect(res.status).toBe(200);
    made = res.body.result;
    expect(made.clientId).toMatch(/^nexus-[A-Za-z0-9_-]{16}$/);
    expect(made.clientSecret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(made.redirectUris).toEqual([
      'https://claude.ai/api/mcp/auth_callback',
      'https://claude.com/api/mcp/auth_callback',
    ]);
    const listed = await nexus.operator<{ result: { clients: unknown[] } }>('remote.clients');
    expect(listed.body.result.clients).toEqual([
      { clientId: made.clientId, clientName: 'Claude (pre-registered)', createdAt: expect.any(String) as string },
    ]);
    expect(JSON.stringify(listed.body)).not.toContain(made.clientSecret);
  });

  it('keeps making, listing and revoking clients to the operator: no credential and no token class can', async () => {
    expect((await nexus.operator('remote.createClient', {}, 'none')).status).toBe(401);
    for (const access of ['read', 'write', 'vault'] as const) {
      const ctx = { transport: 'mcp' as const, caller: { kind: 'token' as const, tokenId: 't', name: 'n', access } };
      const { dispatcher } = nexus.running.core;
      await expect(dispatcher.call('remote.createClient', {}, ctx)).rejects.toMatchObject({ code: 'forbidden' });
      await expect(dispatcher.call('remote.clients', {}, ctx)).rejects.toMatchObject({ code: 'forbidden' });
      await expect(dispatcher.call('remote.revokeClient', { clientId: made.clientId }, ctx)).rejects.toMatchObject({
        code: 'forbidden',
      });
    }
  });

  it('connects Claude with the id and secret (no registration), the operator still approving on the local screen', async () => {
    claude.info = { client_id: made.clientId, client_secret: made.clientSecret };
    expect(await auth(claude, { serverUrl: nexus.mcpUrl, fetchFn: recording })).toBe('REDIRECT');
    const url = claude.authorizationUrl as URL;
    expect(url.searchParams.get('client_id')).toBe(made.clientId);
    expect(url.searchParams.get('code_challenge_method')).toBe('S256');
    expect(url.searchParams.get('resource')).toBe(nexus.mcpUrl);

    const { code } = await approveThroughOperator(nexus, claude, 'read');
    const grants = await nexus.operator<{ result: { grants: { clientName: string }[] } }>('remote.grants');
    expect(grants.body.result.grants.map((g) => g.clientName)).toEqual(['Claude (pre-registered)']);
    expect(await auth(claude, { serverUrl: nexus.mcpUrl, authorizationCode: code, fetchFn: recording })).toBe(
      'AUTHORIZED',
    );
    // The SDK authenticated at the token endpoint with client_secret_basic.
    expect(tokenRequests.at(-1)?.authorization).toMatch(/^Basic /);
    expect(tokenRequests.at(-1)?.body).toContain('code_verifier=');
    expect(tokenRequests.at(-1)?.body).toContain(`resource=${encodeURIComponent(nexus.mcpUrl)}`);
    const audit = nexus.running.core.audit.recent(200).map((r) => r.operation);
    expect(audit).not.toContain('oauth:register');

    const client = new Client({ name: 'claude-test', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(nexus.mcpUrl), { authProvider: claude, fetch: nexus.fetch }),
    );
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toContain('get_nexus_info');
    await client.close();
  });

  it('takes the secret in the form too (client_secret_post): a refresh rotates the tokens', async () => {
    const res = await token({
      grant_type: 'refresh_token',
      refresh_token: claude.saved?.refresh_token ?? '',
      client_id: made.clientId,
      client_secret: made.clientSecret,
    });
    expect(res.status).toBe(200);
    const tokens = (await res.json()) as { access_token: string; refresh_token: string };
    expect(tokens.refresh_token).not.toBe(claude.saved?.refresh_token);
    claude.saved = { ...tokens, token_type: 'Bearer' };
    const ping = await nexus.fetch(nexus.mcpUrl, {
      method: 'POST',
      headers: mcpHeaders(tokens.access_token),
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
    });
    expect(ping.status).toBe(200);
  });

  it('refuses a wrong or missing secret with 401 invalid_client, in the header and in the form', async () => {
    const refresh = claude.saved?.refresh_token ?? '';
    const wrong = `${made.clientSecret.slice(0, -1)}${made.clientSecret.endsWith('A') ? 'B' : 'A'}`;
    const attempts = [
      token({ grant_type: 'refresh_token', refresh_token: refresh }, basic(made.clientId, wrong)),
      token({ grant_type: 'refresh_token', refresh_token: refresh, client_id: made.clientId, client_secret: wrong }),
      token({ grant_type: 'refresh_token', refresh_token: refresh, client_id: made.clientId }),
    ];
    for (const res of await Promise.all(attempts)) {
      expect(res.status).toBe(401);
      expect(((await res.json()) as { error: string }).error).toBe('invalid_client');
    }
    // The stored verifier is not a secret that works either.
    const stored = storedClientSecret(nexus, made.clientId);
    expect(stored).toMatch(/^nexus-sha256:/);
    const withVerifier = await token(
      { grant_type: 'refresh_token', refresh_token: refresh },
      basic(made.clientId, stored),
    );
    expect(withVerifier.status).toBe(401);
    // The refresh token itself was not spent by the refused attempts.
    const right = await token(
      { grant_type: 'refresh_token', refresh_token: refresh },
      basic(made.clientId, made.clientSecret),
    );
    expect(right.status).toBe(200);
    const tokens = (await right.json()) as { access_token: string; refresh_token: string };
    claude.saved = { ...tokens, token_type: 'Bearer' };
  });

  it('still requires PKCE S256 for this client', async () => {
    const fresh = new MemoryClaude();
    fresh.info = { client_id: made.clientId, client_secret: made.clientSecret };
    expect(await auth(fresh, { serverUrl: nexus.mcpUrl, fetchFn: nexus.fetch })).toBe('REDIRECT');
    const url = new URL(fresh.authorizationUrl as URL);
    url.searchParams.delete('code_challenge');
    url.searchParams.delete('code_challenge_method');
    const res = await new Browser(nexus.fetch).get(url);
    const location = res.headers.get('location') ?? '';
    expect(location.startsWith(CLAUDE_CALLBACK)).toBe(true);
    expect(new URL(location).searchParams.get('error')).toBe('invalid_request');
  });

  it('never writes the secret to disk or to the logs: only its hash is kept', () => {
    const secret = made.clientSecret;
    expect(filesHolding(nexus.running.core, [secret, Buffer.from(secret).toString('base64')])).toEqual([]);
    const dataDir = nexus.running.core.ports.paths.dataDir;
    expect(readdirSync(dataDir, { recursive: true }).some((f) => String(f).endsWith('.log'))).toBe(true);
    expect(JSON.stringify(nexus.running.core.audit.recent(500))).not.toContain(made.clientSecret);
  });

  it('does not depend on the vault: with the vault set up and locked, the client still refreshes', async () => {
    const { vault } = nexus.running.core;
    await vault.init({ passphrase: 'correct horse battery staple' });
    await vault.lock();
    expect(vault.status().state).toBe('locked');
    const res = await token(
      { grant_type: 'refresh_token', refresh_token: claude.saved?.refresh_token ?? '' },
      basic(made.clientId, made.clientSecret),
    );
    expect(res.status).toBe(200);
    const tokens = (await res.json()) as { access_token: string; refresh_token: string };
    claude.saved = { ...tokens, token_type: 'Bearer' };
  });

  it('revokes the client: its tokens stop at once, and it can neither refresh nor start again', async () => {
    const access = claude.saved?.access_token ?? '';
    const refresh = claude.saved?.refresh_token ?? '';
    const res = await nexus.operator<{ result: { revoked: boolean; grantsRevoked: number } }>('remote.revokeClient', {
      clientId: made.clientId,
    });
    expect(res.body.result).toMatchObject({ revoked: true, grantsRevoked: 1 });
    const call = await nexus.fetch(nexus.mcpUrl, {
      method: 'POST',
      headers: mcpHeaders(access),
      body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'ping' }),
    });
    expect(call.status).toBe(401);
    const again = await token(
      { grant_type: 'refresh_token', refresh_token: refresh },
      basic(made.clientId, made.clientSecret),
    );
    expect(again.status).toBe(401);
    expect(((await again.json()) as { error: string }).error).toBe('invalid_client');
    const start = await new Browser(nexus.fetch).get(claude.authorizationUrl as URL);
    expect(start.status).toBe(400);
    expect(await start.text()).toContain('invalid_client');
    const listed = await nexus.operator<{ result: { clients: unknown[] } }>('remote.clients');
    expect(listed.body.result.clients).toEqual([]);
    const grants = await nexus.operator<{ result: { grants: { revokedAt: string | null }[] } }>('remote.grants');
    expect(grants.body.result.grants[0]?.revokedAt).not.toBeNull();
    const unknown = await nexus.operator<{ error: { code: string } }>('remote.revokeClient', {
      clientId: made.clientId,
    });
    expect(unknown.body.error.code).toBe('not_found');
  });
});

function storedClientSecret(nexus: RemoteNexus, clientId: string): string {
  const rows = coreDb(nexus.running.core).prepare("SELECT payload FROM oauth_entries WHERE model = 'Client'").all() as {
    payload: string;
  }[];
  const client = rows
    .map((r) => JSON.parse(r.payload) as Record<string, unknown>)
    .find((p) => p.client_id === clientId);
  return String(client?.client_secret ?? '');
}
