import { auth } from '@modelcontextprotocol/sdk/client/auth.js';
import { describe, expect, it } from 'vitest';
import {
  approveThroughOperator,
  Browser,
  CLAUDE_CALLBACK,
  MemoryClaude,
  type RemoteNexus,
} from '../../test/helpers/remote';
import { remoteNexusForSuite } from '../../test/helpers/suite';
import { MAX_PENDING } from '../core/connectors/connector-grants';
import { REGISTRATION_LIMIT } from './public-origin';

const form = (fields: Record<string, string>) => ({
  method: 'POST',
  headers: { 'content-type': 'application/x-www-form-urlencoded' },
  body: new URLSearchParams(fields).toString(),
});

/**
 * Claude (registered once: registrations are rate-limited) with a fresh authorization URL waiting:
 * auth() without tokens stops at REDIRECT with a new PKCE verifier.
 */
let shared: MemoryClaude | undefined;
async function registered(nexus: RemoteNexus): Promise<MemoryClaude> {
  shared ??= new MemoryClaude();
  shared.saved = undefined;
  expect(await auth(shared, { serverUrl: nexus.mcpUrl, fetchFn: nexus.fetch })).toBe('REDIRECT');
  return shared;
}

/** The authorization URL with some parameters replaced (or removed with null). */
function variant(url: URL, changes: Record<string, string | null>): URL {
  const out = new URL(url);
  for (const [k, v] of Object.entries(changes)) {
    if (v === null) out.searchParams.delete(k);
    else out.searchParams.set(k, v);
  }
  return out;
}

/** The error the authorization endpoint sent back to the client's redirect URI. */
async function redirectError(nexus: RemoteNexus, url: URL): Promise<string | null> {
  const res = await new Browser(nexus.fetch).get(url);
  const location = res.headers.get('location') ?? '';
  return location.startsWith(CLAUDE_CALLBACK) ? new URL(location).searchParams.get('error') : `status ${res.status}`;
}

const mcpCall = (nexus: RemoteNexus, token: string, body: unknown) =>
  nexus.fetch(nexus.mcpUrl, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${token}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
    },
    body: JSON.stringify(body),
  });
const ping = { jsonrpc: '2.0', id: 1, method: 'ping' };

describe('the authorization server refuses, each time with its error code', () => {
  const remote = remoteNexusForSuite();

  const token = (claude: MemoryClaude, code: string, extra: Record<string, string> = {}) =>
    remote.nexus.fetch(
      `${remote.nexus.origin}/oauth/token`,
      form({
        grant_type: 'authorization_code',
        code,
        client_id: claude.info?.client_id ?? '',
        redirect_uri: CLAUDE_CALLBACK,
        code_verifier: claude.verifier,
        resource: remote.nexus.mcpUrl,
        ...extra,
      }),
    );

  it('refuses registration with any redirect but Claude’s callbacks and loopback', async () => {
    const register = (redirect_uris: string[]) =>
      remote.nexus.fetch(`${remote.nexus.origin}/oauth/register`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ client_name: 'x', redirect_uris, token_endpoint_auth_method: 'none' }),
      });
    for (const bad of [
      ['https://evil.example/api/mcp/auth_callback'],
      ['https://claude.ai/api/mcp/auth_callback/../x'],
      ['http://claude.ai/api/mcp/auth_callback'],
      [CLAUDE_CALLBACK, 'https://evil.example/cb'],
    ]) {
      const res = await register(bad);
      expect(res.status, bad.join()).toBe(400);
      expect(((await res.json()) as { error: string }).error).toBe('invalid_redirect_uri');
    }
    expect((await register(['https://claude.com/api/mcp/auth_callback'])).status).toBe(201);
    expect((await register(['http://127.0.0.1:33418/callback'])).status).toBe(201);
  });

  it('refuses an authorization request for a redirect the client did not register (no redirect: a page)', async () => {
    const claude = await registered(remote.nexus);
    const url = variant(claude.authorizationUrl as URL, { redirect_uri: 'https://claude.com/api/mcp/auth_callback' });
    const res = await new Browser(remote.nexus.fetch).get(url);
    expect(res.status).toBe(400);
    expect(res.headers.get('location')).toBeNull();
    expect(await res.text()).toContain('invalid_redirect_uri');
  });

  it('refuses plain PKCE and a missing challenge', async () => {
    const claude = await registered(remote.nexus);
    const url = claude.authorizationUrl as URL;
    const plain = variant(url, { code_challenge_method: 'plain', code_challenge: 'a'.repeat(43) });
    expect(await redirectError(remote.nexus, plain)).toBe('invalid_request');
    expect(await redirectError(remote.nexus, variant(url, { code_challenge: null, code_challenge_method: null }))).toBe(
      'invalid_request',
    );
  });

  it('refuses a resource other than the canonical MCP URL at authorize', async () => {
    const claude = await registered(remote.nexus);
    const url = claude.authorizationUrl as URL;
    expect(await redirectError(remote.nexus, variant(url, { resource: `${remote.nexus.origin}/api/rpc` }))).toBe(
      'invalid_target',
    );
    expect(await redirectError(remote.nexus, variant(url, { resource: 'https://elsewhere.example/api/mcp' }))).toBe(
      'invalid_target',
    );
  });

  it('refuses the vault class: asking nexus:vault is invalid_scope, and only read|write can be approved', async () => {
    const claude = await registered(remote.nexus);
    const res = await new Browser(remote.nexus.fetch).get(
      variant(claude.authorizationUrl as URL, { scope: 'nexus:vault' }),
    );
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: string }).error).toBe('invalid_scope');
  });

  it('refuses a wrong or missing verifier, a wrong resource at the token endpoint, and a replayed code', async () => {
    const claude = await registered(remote.nexus);
    const { code } = await approveThroughOperator(remote.nexus, claude);
    const missing = await token(claude, code, { code_verifier: '' });
    expect(missing.status).toBe(400);
    expect(((await missing.json()) as { error: string }).error).toBe('invalid_grant');

    const claude2 = await registered(remote.nexus);
    const { code: code2 } = await approveThroughOperator(remote.nexus, claude2);
    const wrong = await token(claude2, code2, { code_verifier: 'x'.repeat(43) });
    expect(((await wrong.json()) as { error: string }).error).toBe('invalid_grant');

    const claude3 = await registered(remote.nexus);
    const { code: code3 } = await approveThroughOperator(remote.nexus, claude3);
    const target = await token(claude3, code3, { resource: `${remote.nexus.origin}/api/rpc` });
    expect(((await target.json()) as { error: string }).error).toBe('invalid_target');

    const claude4 = await registered(remote.nexus);
    const { code: code4 } = await approveThroughOperator(remote.nexus, claude4);
    const first = (await (await token(claude4, code4)).json()) as { access_token: string };
    expect((await mcpCall(remote.nexus, first.access_token, ping)).status).toBe(200);
    const replay = await token(claude4, code4);
    expect(((await replay.json()) as { error: string }).error).toBe('invalid_grant');
    // A replayed code ends the grant: the token issued from it stops working.
    expect((await mcpCall(remote.nexus, first.access_token, ping)).status).toBe(401);
  });

  it('revokes the grant when a rotated refresh token is replayed', async () => {
    const claude = await registered(remote.nexus);
    const { code } = await approveThroughOperator(remote.nexus, claude);
    const issued = (await (await token(claude, code)).json()) as { refresh_token: string };
    const refresh = () =>
      remote.nexus.fetch(
        `${remote.nexus.origin}/oauth/token`,
        form({
          grant_type: 'refresh_token',
          refresh_token: issued.refresh_token,
          client_id: claude.info?.client_id ?? '',
          resource: remote.nexus.mcpUrl,
        }),
      );
    const rotated = (await (await refresh()).json()) as { access_token: string; refresh_token: string };
    expect(rotated.refresh_token).not.toBe(issued.refresh_token);
    expect((await mcpCall(remote.nexus, rotated.access_token, ping)).status).toBe(200);
    const replay = await refresh();
    expect(replay.status).toBe(400);
    expect(((await replay.json()) as { error: string }).error).toBe('invalid_grant');
    expect((await mcpCall(remote.nexus, rotated.access_token, ping)).status).toBe(401);
    const grants = remote.nexus.running.core.remote.listGrants();
    expect(grants.find((g) => g.revokedAt !== null)).toBeDefined();
  });

  it('answers a write tool on a read grant with 403 insufficient_scope, and takes it on a write grant', async () => {
    const call = {
      jsonrpc: '2.0',
      id: 2,
      method: 'tools/call',
      params: { name: 'create_session', arguments: { workspace: 'a', name: 'b' } },
    };
    const reader = await registered(remote.nexus);
    const { code } = await approveThroughOperator(remote.nexus, reader, 'read');
    const read = (await (await token(reader, code)).json()) as { access_token: string; scope: string };
    expect(read.scope).toBe('nexus:read');
    const refused = await mcpCall(remote.nexus, read.access_token, call);
    expect(refused.status).toBe(403);
    expect(refused.headers.get('www-authenticate')).toContain('error="insufficient_scope"');

    const writer = await registered(remote.nexus);
    const { code: wcode } = await approveThroughOperator(remote.nexus, writer, 'write');
    const write = (await (await token(writer, wcode)).json()) as { access_token: string; scope: string };
    expect(write.scope.split(' ').sort()).toEqual(['nexus:read', 'nexus:write']);
    const taken = await mcpCall(remote.nexus, write.access_token, call);
    expect(taken.status).toBe(200);
    // It reached the tool (which then says what is missing): not a gate refusal.
    expect(JSON.stringify(await taken.json())).toContain('nexus/error');
  });

  it('tells the client access_denied when the operator denies', async () => {
    const claude = await registered(remote.nexus);
    const browser = new Browser(remote.nexus.fetch);
    const consent = new URL(
      (await browser.get(claude.authorizationUrl as URL)).headers.get('location') ?? '',
      remote.nexus.origin,
    );
    await browser.get(consent);
    const { body } = await remote.nexus.operator<{ result: { pending: { id: string }[] } }>('remote.pending');
    const id = body.result.pending.at(-1)?.id ?? '';
    expect((await remote.nexus.operator('remote.deny', { id })).status).toBe(200);
    const resume = await browser.get(consent);
    const back = await browser.get(new URL(resume.headers.get('location') ?? '', remote.nexus.origin));
    expect(new URL(back.headers.get('location') ?? '').searchParams.get('error')).toBe('access_denied');
  });

  it('refuses a consent page opened without the browser that started the request', async () => {
    const claude = await registered(remote.nexus);
    const consent = new URL(
      (await new Browser(remote.nexus.fetch).get(claude.authorizationUrl as URL)).headers.get('location') ?? '',
      remote.nexus.origin,
    );
    const stranger = await new Browser(remote.nexus.fetch).get(consent);
    expect(stranger.status).toBe(400);
  });

  it('stops a revoked grant at the next call (401), the grant listed as revoked', async () => {
    const claude = await registered(remote.nexus);
    const { code } = await approveThroughOperator(remote.nexus, claude);
    const issued = (await (await token(claude, code)).json()) as { access_token: string };
    expect((await mcpCall(remote.nexus, issued.access_token, ping)).status).toBe(200);
    const grant = remote.nexus.running.core.remote
      .listGrants()
      .find((g) => g.revokedAt === null && g.lastUsedAt !== null) as {
      id: string;
    };
    const revoked = await remote.nexus.operator<{ result: { revokedAt: string | null } }>('remote.revoke', {
      id: grant.id,
    });
    expect(revoked.body.result.revokedAt).not.toBeNull();
    const after = await mcpCall(remote.nexus, issued.access_token, ping);
    expect(after.status).toBe(401);
    expect(after.headers.get('www-authenticate')).toContain('error="invalid_token"');
  });

  it('lets the client revoke its refresh token at /oauth/revoke, which ends the grant', async () => {
    const claude = await registered(remote.nexus);
    const { code } = await approveThroughOperator(remote.nexus, claude);
    const issued = (await (await token(claude, code)).json()) as { access_token: string; refresh_token: string };
    const res = await remote.nexus.fetch(
      `${remote.nexus.origin}/oauth/revoke`,
      form({ token: issued.refresh_token, token_type_hint: 'refresh_token', client_id: claude.info?.client_id ?? '' }),
    );
    expect(res.status).toBe(200);
    expect((await mcpCall(remote.nexus, issued.access_token, ping)).status).toBe(401);
  });

  it('keeps at most a few requests waiting, so a flood cannot bury the real one', async () => {
    const statuses: number[] = [];
    for (let i = 0; i <= MAX_PENDING; i++) {
      const claude = await registered(remote.nexus);
      const browser = new Browser(remote.nexus.fetch);
      const consent = new URL(
        (await browser.get(claude.authorizationUrl as URL)).headers.get('location') ?? '',
        remote.nexus.origin,
      );
      statuses.push((await browser.get(consent)).status);
    }
    expect(statuses).toEqual([...Array<number>(MAX_PENDING).fill(200), 429]);
    const { body } = await remote.nexus.operator<{ result: { pending: { id: string }[] } }>('remote.pending');
    expect(body.result.pending).toHaveLength(MAX_PENDING);
    for (const p of body.result.pending) await remote.nexus.operator('remote.deny', { id: p.id });
  });

  it('rate-limits dynamic registration (429 with Retry-After)', async () => {
    let res: Response | undefined;
    for (let i = 0; i <= REGISTRATION_LIMIT.count; i++) {
      res = await remote.nexus.fetch(`${remote.nexus.origin}/oauth/register`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          client_name: 'x',
          redirect_uris: [CLAUDE_CALLBACK],
          token_endpoint_auth_method: 'none',
        }),
      });
      if (res.status === 429) break;
      expect(res.status).toBe(201);
    }
    expect(res?.status).toBe(429);
    expect(Number(res?.headers.get('retry-after'))).toBeGreaterThan(0);
  });
});
