import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request } from 'node:http';
import { join } from 'node:path';
import { repoRoot } from '../../test/helpers/core';
import { tempDir } from '../../test/helpers/temp-dir';
import { serve, type Running } from '../serve';

/**
 * The session live view reads the pane over POST /api/rpc/sessions.pane and refreshes on
 * /api/events: no stream of its own, so nothing that could skip the gate (the seed's terminal
 * socket did its own auth and escaped the gate). Pinned here.
 */
let running: Running;
const dir = tempDir('nexus-pane-gate-');

function status(method: string, path: string, headers: Record<string, string> = {}): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port: running.host.port,
        method,
        path,
        headers: { host: `127.0.0.1:${running.host.port}`, 'content-type': 'application/json', ...headers },
      },
      (res) => {
        resolve(res.statusCode ?? 0);
        res.destroy();
      },
    );
    req.on('error', reject);
    req.end(method === 'POST' ? '{"session":"demo/x"}' : undefined);
  });
}

beforeAll(async () => {
  running = await serve({ dataDir: join(dir.path, 'data'), appRoot: repoRoot, port: 0, config: { version: 'test' } });
});
afterAll(async () => {
  await running?.stop();
  dir.remove();
});

describe('session live view behind the auth gate', () => {
  it.each([
    ['POST', '/api/rpc/sessions.pane'],
    ['POST', '/API/RPC/sessions.pane'],
    ['POST', '//api/rpc/sessions.pane'],
    ['GET', '/api/events'],
  ])('refuses %s %s without credentials', async (method, path) => {
    expect([401, 404]).toContain(await status(method, path));
  });

  it('refuses a wrong bearer token and a token in the query string', async () => {
    expect(await status('POST', '/api/rpc/sessions.pane', { authorization: 'Bearer wrong' })).toBe(401);
    expect(await status('POST', `/api/rpc/sessions.pane?token=${running.host.token}`)).not.toBe(200);
    expect(await status('GET', `/api/events?token=${running.host.token}`)).not.toBe(200);
  });

  it('lets the bearer through to the operation', async () => {
    expect(await status('POST', '/api/rpc/sessions.pane', { authorization: `Bearer ${running.host.token}` })).not.toBe(
      401,
    );
  });
});
