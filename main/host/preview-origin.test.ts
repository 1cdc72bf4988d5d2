import { mkdirSync, writeFileSync } from 'node:fs';
import { request, type IncomingHttpHeaders } from 'node:http';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { testCore } from '../../test/helpers/core';
import { tempDir } from '../../test/helpers/temp-dir';
import type { Core } from '../core';
import { UI_COOKIE } from '../core/previews';
import { startHost, type Host } from './server';
import { COOKIE_NAME } from './session-auth';

// A preview origin on the real loopback host: the session's app and nothing of Nexus. No workspace runs
// here, so a preview origin answers the previews' 404, never a Nexus route; the e2e spec (previews.spec.ts)
// does the same with a real app and Chromium.
let core: Core;
let host: Host;
let cleanup: () => Promise<void>;
let cookie = '';
const ui = tempDir('nexus-ui-');

function send(hostHeader: string, method: string, path: string, headers: Record<string, string> = {}) {
  return new Promise<{ status: number; headers: IncomingHttpHeaders; body: string }>((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port: host.port, method, path, headers: { host: hostHeader, ...headers } },
      (res) => {
        let body = '';
        res.on('data', (c: Buffer) => (body += c.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      },
    );
    req.on('error', reject);
    req.end(method === 'POST' ? '{}' : undefined);
  });
}

beforeAll(async () => {
  ({ core, cleanup } = await testCore());
  writeFileSync(join(ui.path, 'index.html'), '<!doctype html><title>Nexus</title>');
  mkdirSync(join(ui.path, 'assets'));
  host = await startHost(core, { port: 0, rendererDir: ui.path });
  const login = await send(`127.0.0.1:${host.port}`, 'GET', `/?token=${host.token}`);
  cookie = String(login.headers['set-cookie']?.[0] ?? '');
});
afterAll(async () => {
  await host?.close();
  await cleanup?.();
  ui.remove();
});

describe('a preview origin on the loopback host', () => {
  it("sets the UI's cookie host-only on the UI's own origin (no Domain), so no *.localhost origin gets it", () => {
    expect(UI_COOKIE).toBe(COOKIE_NAME);
    expect(cookie).toMatch(new RegExp(`^${COOKIE_NAME}=[A-Za-z0-9_-]+; HttpOnly; SameSite=Strict; Path=/$`));
    expect(cookie.toLowerCase()).not.toContain('domain');
  });

  it('serves no Nexus route there, with the UI cookie or the token: /api/rpc, /api/events, the UI, /api/mcp', async () => {
    const preview = `3000-s.ws.localhost:${host.port}`;
    const value = cookie.split(';')[0] ?? '';
    for (const [method, path] of [
      ['POST', '/api/rpc/app.info'],
      ['GET', '/api/events'],
      ['GET', '/'],
      ['POST', '/api/mcp'],
    ] as const) {
      const r = await send(preview, method, path, { cookie: value, authorization: `Bearer ${host.token}` });
      expect(r.status, path).toBe(404);
      expect(r.body, path).toMatch(/No running workspace "ws"/);
      expect(r.headers['content-type'], path).toMatch(/^text\/plain/);
    }
    const ws = new WebSocket(`ws://127.0.0.1:${host.port}/api/terminal/x`, {
      headers: { host: preview, cookie: value, origin: `http://${preview}` },
    });
    const status = await new Promise<number>((resolve) =>
      ws.on('unexpected-response', (_q, res) => resolve(res.statusCode ?? 0)),
    );
    expect(status).toBe(404);
  });

  it("refuses a call from a preview page to the UI's origin: its Origin is not the UI's", async () => {
    const r = await send(`127.0.0.1:${host.port}`, 'POST', '/api/rpc/app.info', {
      origin: `http://3000-s.ws.localhost:${host.port}`,
      cookie: cookie.split(';')[0] ?? '',
      'content-type': 'application/json',
    });
    expect(r.status).toBe(403);
    expect(r.body).toContain('Origin not allowed');
  });

  it('still serves Nexus on its own names', async () => {
    const r = await send(`127.0.0.1:${host.port}`, 'POST', '/api/rpc/app.info', {
      authorization: `Bearer ${host.token}`,
      'content-type': 'application/json',
    });
    expect(r.status).toBe(200);
  });
});
