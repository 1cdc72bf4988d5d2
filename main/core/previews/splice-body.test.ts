import { createHash, randomBytes } from 'node:crypto';
import { Agent, createServer, request, type IncomingHttpHeaders, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeServers, listenLoopback, loopbackUpstream, previewFront } from '../../../test/helpers/preview-front';
import { createLogger } from '../log';
import { Redactor } from '../redact';
import { PreviewProxy } from './preview-proxy';
import { SPLICE_FROM, spliceAvailable, splicedSoFar } from './splice-body';

// The kernel's copy of large bodies (native/splice) between two real servers on loopback: the app and the listener
// that takes preview origins. What the browser gets must be byte for byte what the app sent, on a connection that
// goes on serving (keep-alive), and the proxy must never crash on an app that stops mid-body.
const BODY = randomBytes(5 * 1024 * 1024 + 123);
const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');
let app: Server;
let front: Server;
let frontPort = 0;
let proxy: PreviewProxy;
let browserConnections = 0;
/** Per request to the app: when its connection was accepted and when its answer had been written. */
const appLog: { url: string; acceptedAt: number; finishedAt: number }[] = [];

beforeAll(async () => {
  app = createServer((req, res) => {
    const entry = { url: req.url ?? '', acceptedAt: accepted.get(req.socket) ?? -1, finishedAt: -1 };
    appLog.push(entry);
    res.on('finish', () => (entry.finishedAt = performance.now()));
    if (req.url === '/sized') return void res.writeHead(200, { 'content-length': BODY.length }).end(BODY);
    if (req.url === '/chunked') return void res.writeHead(200).end(BODY);
    if (req.url === '/small') return void res.writeHead(200, { 'content-length': 5 }).end('small');
    if (req.url === '/cut') {
      // Says 8 MB, sends 2 MB, then its connection breaks.
      res.writeHead(200, { 'content-length': 8 * 1024 * 1024 });
      res.write(BODY.subarray(0, 2 * 1024 * 1024), () => setTimeout(() => res.socket?.destroy(), 50));
      return;
    }
    res.writeHead(404).end();
  });
  const accepted = new WeakMap<object, number>();
  app.on('connection', (socket) => accepted.set(socket, performance.now()));
  const appPort = await listenLoopback(app);
  proxy = new PreviewProxy(
    async () => loopbackUpstream(appPort),
    createLogger({ stderr: false, redactor: new Redactor() }),
  );
  const f = previewFront(() => proxy);
  front = f.server;
  front.on('connection', () => browserConnections++);
  frontPort = await f.start();
});
afterAll(async () => {
  proxy.dispose();
  await closeServers(front, app);
});

/** One keep-alive connection for all of a test's requests, as a browser tab keeps one. */
const browser = new Agent({ keepAlive: true, maxSockets: 1 });
function get(path: string, method = 'GET') {
  return new Promise<{ status: number; headers: IncomingHttpHeaders; body: Buffer; error: string | null }>(
    (resolve) => {
      const chunks: Buffer[] = [];
      const req = request(
        {
          port: frontPort,
          host: '127.0.0.1',
          path,
          method,
          agent: browser,
          headers: { host: `3000-s.ws.localhost:${frontPort}` },
        },
        (res) => {
          res.on('data', (c: Buffer) => chunks.push(c));
          const done = (error: string | null) =>
            resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks), error });
          res.on('end', () => done(null));
          res.on('error', (e) => done(e.message));
          res.on('aborted', () => done('aborted'));
        },
      );
      req.on('error', (e) => resolve({ status: 0, headers: {}, body: Buffer.concat(chunks), error: e.message }));
      req.end();
    },
  );
}

describe('large preview bodies moved by the kernel', () => {
  it('is built for this machine (Linux): the preview proxy would otherwise copy every byte in JS', () => {
    expect(process.platform).toBe('linux');
    expect(spliceAvailable()).toBe(true);
  });

  it('sends a body of known length byte for byte, twice on one browser connection', async () => {
    const before = splicedSoFar();
    const connections = browserConnections;
    for (let i = 0; i < 2; i++) {
      const r = await get('/sized');
      expect(r.error).toBeNull();
      expect(r.status).toBe(200);
      expect(Number(r.headers['content-length'])).toBe(BODY.length);
      expect(sha(r.body)).toBe(sha(BODY));
    }
    expect(browserConnections - connections).toBeLessThanOrEqual(1);
    // The addon's report comes on the event loop after the last byte, which the browser may have read first.
    await expect.poll(() => splicedSoFar().bodies - before.bodies).toBe(2);
    // Node had read the first part with the head; the kernel moved the rest.
    expect(splicedSoFar().bytes - before.bytes).toBeGreaterThan(2 * (BODY.length - 256 * 1024));
    // And the connection still serves a small answer after them.
    expect((await get('/small')).body.toString()).toBe('small');
  });

  it("has the app's next connection dialled while a spliced body goes (its own is closed after it)", async () => {
    appLog.length = 0;
    const before = splicedSoFar().bodies;
    await get('/sized');
    await get('/sized');
    await expect.poll(() => splicedSoFar().bodies - before).toBe(2);
    const [first, second] = appLog;
    expect(first && second).toBeTruthy();
    // The second asset came on a connection the proxy had opened before the first asset's answer was all written.
    expect(second?.acceptedAt).toBeLessThan(first?.finishedAt ?? 0);
  });

  it('leaves a body of unknown length, a small one and a HEAD to the JS path', async () => {
    const before = splicedSoFar();
    const chunked = await get('/chunked');
    expect(sha(chunked.body)).toBe(sha(BODY));
    expect(BODY.length).toBeGreaterThan(SPLICE_FROM);
    expect((await get('/small')).body.toString()).toBe('small');
    const head = await get('/sized', 'HEAD');
    expect(head.status).toBe(200);
    expect(head.body.length).toBe(0);
    expect(splicedSoFar().bodies).toBe(before.bodies);
  });

  it("cuts the browser's answer short when the app's connection breaks mid-body, and goes on serving", async () => {
    const cut = await get('/cut');
    expect(cut.error).not.toBeNull();
    expect(cut.body.length).toBeLessThan(8 * 1024 * 1024);
    expect(sha(cut.body.subarray(0, 1024))).toBe(sha(BODY.subarray(0, 1024)));
    const r = await get('/sized');
    expect(sha(r.body)).toBe(sha(BODY));
  });
});
