import { describe, expect, it } from 'vitest';
import { matchRoute, splitUrl } from './routes';

const mounts = new Set(['/api/mcp']);
const assets = new Set(['/assets/index-abc.js']);
const route = (method: string, url: string) => matchRoute(method, splitUrl(url).path, mounts, assets);

describe('matchRoute', () => {
  it('matches the exact routes', () => {
    expect(route('POST', '/api/rpc/app.info')).toEqual({ kind: 'rpc', op: 'app.info' });
    expect(route('GET', '/api/events')).toEqual({ kind: 'events' });
    expect(route('POST', '/api/mcp')).toEqual({ kind: 'mount', path: '/api/mcp' });
    expect(route('GET', '/?token=x')).toEqual({ kind: 'login' });
    expect(route('GET', '/assets/index-abc.js')).toEqual({ kind: 'asset', path: '/assets/index-abc.js' });
  });

  it.each([
    '/API/MCP',
    '/api/mcp/',
    '//api/mcp',
    '/api/%6Dcp',
    '/api%2Fmcp',
    '/api/./mcp',
    '/api/../api/mcp',
    '/Api/rpc/app.info',
    '/api/rpc/app.info/',
    '/api/rpc/nope.op',
    '/assets/../index.html',
    '/assets/index-ABC.js',
  ])('matches no route for %s', (path) => {
    expect(route('POST', path)).toBeNull();
    expect(route('GET', path)).toBeNull();
  });

  it('refuses the wrong method on a known path', () => {
    expect(route('GET', '/api/rpc/app.info')).toBeNull();
    expect(route('POST', '/api/events')).toBeNull();
  });
});
