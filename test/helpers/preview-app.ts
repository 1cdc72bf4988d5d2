import { request } from 'node:http';
import { WebSocket } from 'ws';

/**
 * A dev server as a session would start one, in plain Node (the worker image has no npm packages): a page that
 * opens a hot-reload WebSocket at /hmr and tries to reach Nexus (its /api/rpc on the UI's origin and on its own,
 * and the cookie), a 10 MB asset at /big, and a WebSocket that says `reload` at once and echoes every message
 * (small frames: what hot reload sends). Used by the previews docker test, the e2e spec and bench/preview.
 * Run: `node -e "$PREVIEW_APP" <port> [<host>]`.
 */
export const PREVIEW_APP = String.raw`
const http = require('http');
const crypto = require('crypto');
const port = Number(process.argv[1]);
const host = process.argv[2] || '0.0.0.0';
const big = Buffer.alloc(10 * 1024 * 1024, 97);
const page = '<!doctype html><html><head><title>preview app</title></head><body>' +
  '<h1>The previewed app</h1><p id="hot">hot: waiting</p><p id="api">api: pending</p>' +
  '<p id="own">own: pending</p><p id="cookie">cookie: pending</p>' +
  '<script src="/probe.js"></script></body></html>';
const probe = [
  "const ws = new WebSocket('ws://' + location.host + '/hmr');",
  "ws.onmessage = (m) => { document.getElementById('hot').textContent = 'hot: ' + m.data; };",
  "document.getElementById('cookie').textContent = 'cookie: [' + document.cookie + ']';",
  "const ui = location.protocol + '//127.0.0.1:' + location.port + '/api/rpc/app.info';",
  "fetch(ui, { method: 'POST', credentials: 'include', headers: { 'content-type': 'application/json' }, body: '{}' })",
  "  .then((r) => r.text().then((t) => 'api: reached ' + r.status + ' ' + t.slice(0, 80)), (e) => 'api: blocked ' + e.name)",
  "  .then((t) => { document.getElementById('api').textContent = t; });",
  "fetch('/api/rpc/app.info', { method: 'POST', body: '{}' })",
  "  .then((r) => r.text().then((t) => 'own: ' + r.status + ' ' + t.slice(0, 80)), (e) => 'own: failed ' + e.name)",
  "  .then((t) => { document.getElementById('own').textContent = t; });",
].join('\n');
const server = http.createServer((req, res) => {
  if (req.url === '/big') return res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': big.length }).end(big);
  if (req.url === '/probe.js') return res.writeHead(200, { 'content-type': 'text/javascript' }).end(probe);
  if (req.url === '/') return res.writeHead(200, { 'content-type': 'text/html' }).end(page);
  res.writeHead(404, { 'content-type': 'text/plain' }).end('the app has no ' + req.url + ' (cookie: ' + (req.headers.cookie || '') + ')');
});
const frame = (text) => {
  const p = Buffer.from(text);
  return Buffer.concat([Buffer.from(p.length < 126 ? [0x81, p.length] : [0x81, 126, p.length >> 8, p.length & 255]), p]);
};
server.on('upgrade', (req, socket) => {
  const accept = crypto.createHash('sha1').update(req.headers['sec-websocket-key'] + '258EAFA5-E914-47DA-95CA-C5AB0DC85B11').digest('base64');
  socket.write('HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: ' + accept + '\r\n\r\n');
  socket.setNoDelay(true);
  socket.write(frame('reload'));
  let buf = Buffer.alloc(0);
  socket.on('data', (d) => {
    buf = Buffer.concat([buf, d]);
    for (;;) {
      if (buf.length < 2) return;
      const op = buf[0] & 15;
      let len = buf[1] & 127, off = 2;
      if (len === 126) { if (buf.length < 4) return; len = buf.readUInt16BE(2); off = 4; }
      if (buf.length < off + 4 + len) return;
      const mask = buf.subarray(off, off + 4);
      const data = Buffer.from(buf.subarray(off + 4, off + 4 + len)).map((b, i) => b ^ mask[i % 4]);
      buf = buf.subarray(off + 4 + len);
      if (op === 8) return socket.end();
      if (op === 1) socket.write(frame(data.toString()));
    }
  });
  socket.on('error', () => socket.destroy());
});
server.listen(port, host);
`;

/** A GET of `path` through a front on 127.0.0.1:`port` (a preview proxy) with the preview origin's Host. */
export function previewGet(port: number, host: string, path: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ port, host: '127.0.0.1', path, headers: { host } }, (res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

/** The app's hot-reload exchange through the front: its `reload`, then the echo of what the test sends. */
export async function previewHotReload(port: number, host: string): Promise<string[]> {
  const ws = new WebSocket(`ws://127.0.0.1:${port}/hmr`, { headers: { host } });
  const got: string[] = [];
  await new Promise<void>((resolve, reject) => {
    ws.on('message', (m) => {
      got.push(String(m));
      if (got.length === 1) ws.send('saved src/app.tsx');
      else resolve();
    });
    ws.on('error', reject);
  });
  ws.close();
  return got;
}
