import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rawRequest } from '../../test/helpers/mcp';
import { PUBLIC_NAME, startRemoteNexus, type RemoteNexus } from '../../test/helpers/remote';
import { operatorContext } from '../core/handlers';

/** A WebSocket upgrade to Nexus's own port, as the tunnel delivers it (from loopback, public Host). */
function upgrade(port: number, host: string, path: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = request({
      host: '127.0.0.1',
      port,
      path,
      headers: {
        host,
        connection: 'Upgrade',
        upgrade: 'websocket',
        'sec-websocket-version': '13',
        'sec-websocket-key': 'dGhlIHNhbXBsZSBub25jZQ==',
      },
    });
    req.on('response', (res) => resolve(`${res.statusCode}`));
    req.on('upgrade', () => resolve('upgraded'));
    req.on('error', reject);
    req.end();
  });
}

describe('what the public origin exposes, and what it does not', () => {
  let nexus: RemoteNexus;
  let publicHost: string;
  beforeAll(async () => {
    nexus = await startRemoteNexus();
    publicHost = `${PUBLIC_NAME}:${nexus.frontPort}`;
  });
  afterAll(() => nexus.close());

  it('answers 404 for the UI, /api/rpc, /api/events and assets through the tunnel', async () => {
    for (const [method, path] of [
      ['GET', '/'],
      ['GET', `/?token=${nexus.running.host.token}`],
      ['GET', '/index.html'],
      ['POST', '/api/rpc/app.info'],
      ['POST', '/api/rpc/remote.approve'],
      ['GET', '/api/events'],
      ['GET', '/.well-known/openid-configuration'],
      ['GET', '/oauth/register'],
      ['DELETE', '/api/mcp'],
      ['GET', '/api/mcp/'],
      ['GET', '/API/MCP'],
    ] as const) {
      const res = await nexus.fetch(`${nexus.origin}${path}`, {
        method,
        headers: { authorization: `Bearer ${nexus.running.host.token}`, 'content-type': 'application/json' },
        ...(method === 'POST' ? { body: '{}' } : {}),
      });
      expect(res.status, `${method} ${path}`).toBe(404);
    }
  });

  it('gives loopback no weight: the same requests from 127.0.0.1 with the public Host are 404 too', async () => {
    const port = nexus.running.host.port;
    const token = nexus.running.host.token;
    for (const path of ['/', '/api/rpc/app.info', '/api/events']) {
      const res = await rawRequest(port, {
        method: path === '/api/rpc/app.info' ? 'POST' : 'GET',
        path,
        headers: { host: publicHost, authorization: `Bearer ${token}`, cookie: `nexus_session=${token}` },
        body: path === '/api/rpc/app.info' ? '{}' : undefined,
      });
      expect(res.status, path).toBe(404);
    }
    expect(await upgrade(port, publicHost, '/api/terminal/some-session')).toBe('404');
  });

  it('still serves the local UI and API on the loopback name', async () => {
    const res = await nexus.operator<{ result: { version: string } }>('app.info');
    expect(res.status).toBe(200);
    expect(res.body.result.version).toBe('test');
  });

  it('refuses an approval without the local credential (401), and from the public Host (404)', async () => {
    const denied = await nexus.operator<{ error: { code: string } }>('remote.approve', { id: 'x' }, 'none');
    expect(denied.status).toBe(401);
    expect(denied.body.error.code).toBe('unauthorized');
  });

  it('keeps every remote operation operator-only: no MCP token or OAuth grant can approve or list', async () => {
    for (const access of ['read', 'write', 'vault'] as const) {
      const ctx = {
        transport: 'mcp' as const,
        caller: { kind: 'token' as const, tokenId: 'oauth:g', name: 'n', access },
      };
      for (const op of ['remote.pending', 'remote.grants', 'remote.status'] as const)
        await expect(nexus.running.core.dispatcher.call(op, {}, ctx)).rejects.toMatchObject({ code: 'forbidden' });
      await expect(
        nexus.running.core.dispatcher.call('remote.approve', { id: 'x', class: 'write' }, ctx),
      ).rejects.toMatchObject({ code: 'forbidden' });
    }
    await expect(
      nexus.running.core.dispatcher.call('remote.approve', { id: 'x', class: 'vault' }, operatorContext('http')),
    ).rejects.toMatchObject({ code: 'bad_request' });
  });

  it('does not take an nxs_ token on the public origin, nor leave the mode off the status', async () => {
    const { secret } = await nexus.running.core.tokens.create('desk', 'write');
    const res = await nexus.fetch(nexus.mcpUrl, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${secret}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
    });
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toContain('error="invalid_token"');
    expect(nexus.running.core.remote.status()).toEqual({
      publicOrigin: nexus.origin,
      source: 'flag',
      connectorUrl: nexus.mcpUrl,
    });
  });
});
