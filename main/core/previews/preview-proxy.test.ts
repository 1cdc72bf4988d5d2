import { createServer, request, type IncomingHttpHeaders, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket, WebSocketServer } from 'ws';
import { NexusError } from '../../../shared/errors';
import { closeServers, listenLoopback, loopbackUpstream, previewFront } from '../../../test/helpers/preview-front';
import { createLogger } from '../log';
import { Redactor } from '../redact';
import { hostOnlyCookie, PreviewProxy, UI_COOKIE, withoutUiCookie } from './preview-proxy';

// The proxy between two real servers on loopback: the app (HTTP and a WebSocket) and the listener that
// takes preview origins. What reaches a container is preview-service's (previews.docker.test.ts).
let app: Server;
let front: Server;
let appPort = 0;
let frontPort = 0;
let proxy: PreviewProxy;
const seen: IncomingHttpHeaders[] = [];

beforeAll(async () => {
  app = createServer((req, res) => {
    seen.push(req.headers);
    if (req.url === '/big') {
      res.writeHead(200, { 'content-type': 'application/octet-stream' });
      let left = 64;
      const chunk = Buffer.alloc(16 * 1024, 7);
      const more = () => {
        while (left > 0) if ((left--, !res.write(chunk))) return void res.once('drain', more);
        res.end();
      };
      return more();
    }
    res.writeHead(200, { 'set-cookie': ['app=1; Domain=localhost; Path=/; HttpOnly', 'plain=2'] });
    res.end(`hello ${req.method} ${req.url}`);
  });
  new WebSocketServer({ server: app }).on('connection', (ws) => ws.on('message', (m) => ws.send(`echo:${String(m)}`)));
  appPort = await listenLoopback(app);
  const upstream = loopbackUpstream(appPort);
  const redactor = new Redactor();
  proxy = new PreviewProxy(
    async (name) => {
      if (name.session !== 's') throw new NexusError('not_found', 'No such preview.');
      if (name.port === 1) return { key: 'dead', dial: () => Promise.reject(new Error('connection refused')) };
      return upstream;
    },
    createLogger({ stderr: false, redactor }),
  );
  const f = previewFront(() => proxy);
  front = f.server;
  frontPort = await f.start();
});
afterAll(async () => {
  proxy.dispose();
  await closeServers(front, app);
});

function get(host: string, path: string, headers: Record<string, string> = {}) {
  return new Promise<{ status: number; headers: IncomingHttpHeaders; body: Buffer }>((resolve, reject) => {
    const req = request({ port: frontPort, host: '127.0.0.1', path, headers: { host, ...headers } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('the preview proxy', () => {
  it("serves the app at its origin, with the app's own headers and a streamed body", async () => {
    const r = await get(`3000-s.ws.localhost:${frontPort}`, '/page?x=1');
    expect(r.status).toBe(200);
    expect(r.body.toString()).toBe('hello GET /page?x=1');
    const big = await get(`3000-s.ws.localhost:${frontPort}`, '/big');
    expect(big.body.length).toBe(64 * 16 * 1024);
  });

  it("never forwards the UI's cookie, and keeps the app's own cookies host-only", async () => {
    seen.length = 0;
    const r = await get(`3000-s.ws.localhost:${frontPort}`, '/', { cookie: `${UI_COOKIE}=secret; mine=1` });
    expect(seen[0]?.cookie).toBe('mine=1');
    expect(seen[0]?.host).toBe(`3000-s.ws.localhost:${frontPort}`);
    expect(r.headers['set-cookie']).toEqual(['app=1; Path=/; HttpOnly', 'plain=2']);
    expect(withoutUiCookie(`${UI_COOKIE}=x`)).toBeUndefined();
    expect(hostOnlyCookie('a=b; domain=.ws.localhost; Secure')).toBe('a=b; Secure');
  });

  it('answers 404 for a preview nobody serves and 502 when its server does not answer', async () => {
    expect((await get(`3000-other.ws.localhost:${frontPort}`, '/')).status).toBe(404);
    const dead = await get(`1-s.ws.localhost:${frontPort}`, '/');
    expect(dead.status).toBe(502);
    expect(dead.body.toString()).toMatch(/did not answer/);
  });

  it('passes a WebSocket through both ways (hot reload), without the UI cookie', async () => {
    seen.length = 0;
    const ws = new WebSocket(`ws://127.0.0.1:${frontPort}/hmr`, {
      headers: { host: `3000-s.ws.localhost:${frontPort}`, cookie: `${UI_COOKIE}=secret` },
    });
    const reply = await new Promise<string>((resolve, reject) => {
      ws.on('open', () => ws.send('ping'));
      ws.on('message', (m) => resolve(String(m)));
      ws.on('error', reject);
    });
    expect(reply).toBe('echo:ping');
    ws.close();
    const refused = new WebSocket(`ws://127.0.0.1:${frontPort}/hmr`, {
      headers: { host: `3000-nobody.ws.localhost:${frontPort}` },
    });
    const status = await new Promise<number>((resolve) =>
      refused.on('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0)),
    );
    expect(status).toBe(404);
  });
});
