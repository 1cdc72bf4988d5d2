import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request, type ClientRequest, type IncomingMessage } from 'node:http';
import { testCore } from '../../test/helpers/core';
import type { Core } from '../core';
import { startHost, type Host } from './server';
import { tempDir } from '../../test/helpers/temp-dir';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

interface Res {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

function send(
  host: Host,
  method: string,
  path: string,
  headers: Record<string, string> = {},
  body?: string,
): Promise<Res> {
  return new Promise((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port: host.port, method, path, headers: { host: `127.0.0.1:${host.port}`, ...headers } },
      (res) => {
        let data = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (data += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: data }));
      },
    );
    req.on('error', reject);
    if (body !== undefined) req.write(body);
    req.end();
  });
}

describe('loopback host', () => {
  let core: Core;
  let host: Host;
  let cleanup: () => Promise<void>;
  const ui = tempDir('nexus-ui-');
  beforeAll(async () => {
    ({ core, cleanup } = await testCore());
    mkdirSync(join(ui.path, 'assets'));
    writeFileSync(join(ui.path, 'index.html'), '<!doctype html><title>Nexus</title>');
    writeFileSync(join(ui.path, 'assets', 'app.js'), 'console.log(1)');
    host = await startHost(core, {
      port: 0,
      rendererDir: ui.path,
      mounts: [{ path: '/api/mcp', handle: (_req, res) => void res.writeHead(200).end('mounted') }],
    });
  });
  afterAll(async () => {
    await host.close();
    await cleanup();
    ui.remove();
  });
  const bearer = () => ({ authorization: `Bearer ${host.token}` });
  /** GET /api/events as the logged-in UI: the stream's response (and its request, to end it) go to `onResponse`. */
  const openEvents = (onResponse: (res: IncomingMessage, req: ClientRequest) => void, onError: (e: Error) => void) => {
    const req = request(
      {
        host: '127.0.0.1',
        port: host.port,
        path: '/api/events',
        headers: { host: `127.0.0.1:${host.port}`, ...bearer() },
      },
      (res) => onResponse(res, req),
    );
    req.on('error', onError);
    req.end();
  };

  it('answers 401 with WWW-Authenticate to a request without credentials', async () => {
    const res = await send(host, 'POST', '/api/rpc/app.info');
    expect(res.status).toBe(401);
    expect(res.headers['www-authenticate']).toMatch(/^Bearer/);
    expect(JSON.parse(res.body)).toMatchObject({ error: { code: 'unauthorized' } });
  });

  it('answers app.info to the bearer token', async () => {
    const res = await send(host, 'POST', '/api/rpc/app.info', bearer());
    expect(res.status).toBe(200);
    expect(JSON.parse(res.body).result).toMatchObject({ version: 'test', vault: { state: 'uninitialized' } });
  });

  it('refuses a wrong bearer token', async () => {
    expect((await send(host, 'POST', '/api/rpc/app.info', { authorization: 'Bearer nope' })).status).toBe(401);
  });

  it('exchanges the start token for an HttpOnly SameSite=Strict cookie that then authenticates', async () => {
    const login = await send(host, 'GET', `/?token=${host.token}`);
    expect(login.status).toBe(303);
    expect(login.headers.location).toBe('/');
    const cookie = String(login.headers['set-cookie']);
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/SameSite=Strict/);
    expect(cookie).not.toContain(host.token);
    const pair = cookie.split(';')[0]!;
    const page = await send(host, 'GET', '/', { cookie: pair });
    expect(page.status).toBe(200);
    expect(page.headers['content-security-policy']).toMatch(/default-src 'self'/);
    expect((await send(host, 'GET', '/assets/app.js', { cookie: pair })).status).toBe(200);
    expect((await send(host, 'POST', '/api/rpc/app.info', { cookie: pair })).status).toBe(200);
  });

  it('refuses a wrong login token without setting a cookie', async () => {
    const res = await send(host, 'GET', '/?token=wrong');
    expect(res.status).toBe(401);
    expect(res.headers['set-cookie']).toBeUndefined();
  });

  it.each(['null', 'http://evil.example', `http://127.0.0.1:1`])(
    'refuses Origin %s with 403 even with a valid token',
    async (origin) => {
      expect((await send(host, 'POST', '/api/rpc/app.info', { ...bearer(), origin })).status).toBe(403);
    },
  );

  it('accepts its own Origin', async () => {
    expect(
      (await send(host, 'POST', '/api/rpc/app.info', { ...bearer(), origin: `http://127.0.0.1:${host.port}` })).status,
    ).toBe(200);
  });

  it.each(['evil.example', `attacker.test:${0}`, '127.0.0.1:1'])(
    'refuses Host %s with 403 (DNS rebinding)',
    async (h) => {
      expect((await send(host, 'POST', '/api/rpc/app.info', { ...bearer(), host: h })).status).toBe(403);
    },
  );

  it.each([
    '/API/RPC/app.info',
    '/api/rpc/app.info/',
    '//api/rpc/app.info',
    '/api/rpc%2Fapp.info',
    '/api/rpc/app%2Einfo',
  ])('answers 404 to the path variant %s', async (path) => {
    expect((await send(host, 'POST', path, bearer())).status).toBe(404);
  });

  it('refuses credentials in the query string on API routes', async () => {
    expect((await send(host, 'POST', `/api/rpc/app.info?token=${host.token}`)).status).toBe(400);
  });

  it('answers a typed bad_request to malformed JSON and to invalid input', async () => {
    const bad = await send(
      host,
      'POST',
      '/api/rpc/app.info',
      { ...bearer(), 'content-type': 'application/json' },
      '{not json',
    );
    expect(bad.status).toBe(400);
    expect(JSON.parse(bad.body).error.code).toBe('bad_request');
    const invalid = await send(
      host,
      'POST',
      '/api/rpc/app.info',
      { ...bearer(), 'content-type': 'application/json' },
      '{"x":1}',
    );
    expect(invalid.status).toBe(400);
    expect(invalid.body).not.toMatch(/at .*\.ts:\d+/);
  });

  it('refuses a body over 1 MiB without reading the rest of it, and keeps answering', async () => {
    const big = await send(
      host,
      'POST',
      '/api/rpc/app.info',
      { ...bearer(), 'content-type': 'application/json' },
      `{"x":"${'a'.repeat(2 * 1024 * 1024)}"}`,
    ).catch((e: NodeJS.ErrnoException) => ({ status: 0, code: e.code }));
    expect(big).toMatchObject({ status: 0, code: expect.stringMatching(/^(ECONNRESET|EPIPE)$/) });
    expect((await send(host, 'POST', '/api/rpc/app.info', bearer())).status).toBe(200);
  });

  it('sends nosniff and no-referrer with every kind of response: answers, refusals, files, the login, a mount, events', async () => {
    const json = { ...bearer(), 'content-type': 'application/json' };
    const responses = await Promise.all([
      send(host, 'POST', '/api/rpc/app.info', bearer()),
      send(host, 'POST', '/api/rpc/app.info', json, '{"x":1}'),
      send(host, 'POST', '/api/rpc/app.info'),
      send(host, 'POST', '/api/rpc/app.info', { ...bearer(), host: 'evil.example' }),
      send(host, 'GET', '/nowhere', bearer()),
      send(host, 'POST', `/api/rpc/app.info?token=${host.token}`),
      send(host, 'GET', `/?token=${host.token}`),
      send(host, 'GET', '/', bearer()),
      send(host, 'GET', '/assets/app.js', bearer()),
      send(host, 'POST', '/api/mcp', bearer()),
    ]);
    expect(responses.map((r) => r.status)).toEqual([200, 400, 401, 403, 404, 400, 303, 200, 200, 200]);
    const events = await new Promise<Record<string, string | string[] | undefined>>((resolve, reject) =>
      openEvents((res, req) => {
        resolve(res.headers);
        req.destroy();
      }, reject),
    );
    for (const headers of [...responses.map((r) => r.headers), events]) {
      expect(headers['x-content-type-options']).toBe('nosniff');
      expect(headers['referrer-policy']).toBe('no-referrer');
    }
  });

  it('streams core events over SSE to an authenticated client only', async () => {
    expect((await send(host, 'GET', '/api/events')).status).toBe(401);
    const received = new Promise<string>((resolve, reject) =>
      openEvents((res, req) => {
        expect(res.headers['content-type']).toMatch(/text\/event-stream/);
        let data = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => {
          data += c;
          if (data.includes('event: app.status')) {
            req.destroy();
            resolve(data);
          }
        });
        // Emit once the stream is open.
        setTimeout(() => core.status.set('nats', { state: 'unavailable', reason: 'test: no server' }), 50);
      }, reject),
    );
    const text = await received;
    expect(text).toMatch(/"state":"unavailable","reason":"test: no server"/);
  });
});
