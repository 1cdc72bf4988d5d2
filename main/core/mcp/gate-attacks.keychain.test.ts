import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rawRequest, startNexus, mintToken, toolCall } from '../../../test/helpers/mcp';

type Nexus = Awaited<ReturnType<typeof startNexus>>;

describe('the /api/mcp gate against Host, Origin and credential attacks', () => {
  let nexus: Nexus;
  let secret: string;
  let port: number;
  beforeAll(async () => {
    nexus = await startNexus();
    port = nexus.running.host.port;
    secret = (await mintToken(nexus.running, 'write')).secret;
  });
  afterAll(() => nexus.stop());

  const list = (headers: Record<string, string>, path = '/api/mcp') =>
    rawRequest(port, { path, headers, body: toolCall('list_workspaces', {}) });
  const bearer = () => ({ authorization: `Bearer ${secret}` });

  it('answers a valid token from a loopback Host with no Origin', async () => {
    const res = await list(bearer());
    expect(res.status).toBe(200);
    expect(JSON.parse(res.text)).toMatchObject({ result: { structuredContent: { workspaces: [] } } });
  });

  it('accepts every loopback spelling of its own Host and Origin', async () => {
    for (const name of ['127.0.0.1', 'localhost', '[::1]']) {
      const res = await list({ ...bearer(), host: `${name}:${port}`, origin: `http://${name}:${port}` });
      expect(res.status, name).toBe(200);
    }
  });

  it('refuses a rebinding Host even with a valid token', async () => {
    for (const host of [
      'evil.example.com',
      `evil.example.com:${port}`,
      `127.0.0.1:${port + 1}`,
      `127.0.0.1`,
      `LOCALHOST:${port}`,
      `127.0.0.1.nip.io:${port}`,
    ]) {
      const res = await list({ ...bearer(), host });
      expect(res.status, host).toBe(403);
    }
  });

  it('refuses a present Origin that is not this server, including null', async () => {
    for (const origin of [
      'null',
      'http://evil.example.com',
      `https://127.0.0.1:${port}`,
      `http://127.0.0.1:${port + 1}`,
      `http://localhost:${port}.evil.com`,
      '',
    ]) {
      const res = await list({ ...bearer(), origin });
      expect(res.status, origin).toBe(403);
    }
  });

  it('refuses a token in the query string, with or without a header', async () => {
    for (const query of [`?token=${secret}`, `?access_token=${secret}`, `?authorization=Bearer%20${secret}`]) {
      expect((await list({}, `/api/mcp${query}`)).status).toBe(400);
      expect((await list(bearer(), `/api/mcp${query}`)).status).toBe(400);
    }
  });

  it("does not take the UI's start token or its cookie as an MCP credential", async () => {
    const uiToken = nexus.running.host.token;
    expect(
      (
        await rawRequest(port, {
          method: 'POST',
          path: '/api/rpc/app.info',
          headers: { authorization: `Bearer ${uiToken}` },
          body: '{}',
        })
      ).status,
    ).toBe(200);
    const login = await rawRequest(port, { method: 'GET', path: `/?token=${uiToken}` });
    const cookie = String(login.headers['set-cookie']).split(';')[0] ?? '';
    expect(cookie).toMatch(/^nexus_session=/);

    const withUiToken = await list({ authorization: `Bearer ${uiToken}` });
    expect(withUiToken.status).toBe(401);
    expect(String(withUiToken.headers['www-authenticate'])).toContain('error="invalid_token"');
    const withCookie = await list({ cookie });
    expect(withCookie.status).toBe(401);
    expect(String(withCookie.headers['www-authenticate'])).toBe('Bearer realm="nexus-mcp"');
  });

  it('does not let an MCP token into the UI routes', async () => {
    expect((await rawRequest(port, { path: '/api/rpc/app.info', headers: bearer(), body: '{}' })).status).toBe(401);
    expect((await rawRequest(port, { path: '/api/rpc/tokens.list', headers: bearer(), body: '{}' })).status).toBe(401);
  });

  it('refuses other authorization schemes and a token with the wrong class prefix', async () => {
    expect((await list({ authorization: `Basic ${Buffer.from(`x:${secret}`).toString('base64')}` })).status).toBe(401);
    expect((await list({ authorization: `bearer ${secret}` })).status).toBe(401);
    expect((await list({ authorization: `Bearer ${secret.replace('nxs_w_', 'nxs_v_')}` })).status).toBe(401);
    expect(
      (await list({ authorization: `Bearer ${secret.slice(0, -1)}${secret.endsWith('A') ? 'B' : 'A'}` })).status,
    ).toBe(401);
  });

  it('is stateless: GET and DELETE are 405 after authentication, and a bad body is 400', async () => {
    const get = await rawRequest(port, { method: 'GET', path: '/api/mcp', headers: bearer() });
    expect(get.status).toBe(405);
    expect(get.headers.allow).toBe('POST');
    expect((await rawRequest(port, { method: 'DELETE', path: '/api/mcp', headers: bearer() })).status).toBe(405);
    expect((await rawRequest(port, { path: '/api/mcp', headers: bearer(), body: '{not json' })).status).toBe(400);
    expect((await rawRequest(port, { method: 'GET', path: '/api/mcp' })).status).toBe(401);
  });

  it('records the last use of a token', async () => {
    const fresh = await mintToken(nexus.running, 'read', 'fresh');
    expect(nexus.running.core.tokens.store.get(fresh.id)?.lastUsedAt).toBeNull();
    const started = Date.now();
    await list({ authorization: `Bearer ${fresh.secret}` });
    const at = nexus.running.core.tokens.store.get(fresh.id)?.lastUsedAt;
    expect(Date.parse(at ?? '')).toBeGreaterThanOrEqual(started - 1000);
  });

  it('audits a refusal at the gate: an anonymous 401', async () => {
    await list({});
    expect(nexus.running.core.audit.recent(1)[0]).toMatchObject({
      actor: 'anonymous',
      transport: 'mcp',
      operation: 'mcp:gate',
      outcome: 'unauthorized',
    });
  });
});
