import { createServer, request, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A small loopback reverse proxy that adds `Authorization: Bearer <token>` (the conformance runner
 * cannot send one). It speaks for the target only when the client addressed the proxy itself:
 * a Host or Origin naming the proxy is rewritten to the target's, any other value passes through
 * untouched, so the target's own Host/Origin checks still see an attacker's headers.
 */
export async function startBearerProxy(
  targetPort: number,
  token: string,
): Promise<{ port: number; url: string; close(): Promise<void> }> {
  let port = 0;
  const own = (value: string, scheme: string) =>
    ['127.0.0.1', 'localhost'].some((n) => value === `${scheme}${n}:${port}`);
  const server = createServer((req, res) => {
    const headers: IncomingHttpHeaders = { ...req.headers, authorization: `Bearer ${token}` };
    if (typeof req.headers.host === 'string' && own(req.headers.host, '')) headers.host = `127.0.0.1:${targetPort}`;
    if (typeof req.headers.origin === 'string' && own(req.headers.origin, 'http://'))
      headers.origin = `http://127.0.0.1:${targetPort}`;
    const upstream = request(
      { host: '127.0.0.1', port: targetPort, method: req.method, path: req.url, headers },
      (up) => {
        res.writeHead(up.statusCode ?? 502, up.headers);
        up.pipe(res);
      },
    );
    upstream.on('error', () => {
      if (!res.headersSent) res.writeHead(502);
      res.end();
    });
    req.pipe(upstream);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  port = (server.address() as AddressInfo).port;
  return {
    port,
    url: `http://localhost:${port}`,
    close: () =>
      new Promise<void>((r) => {
        server.close(() => r());
        server.closeAllConnections();
      }),
  };
}
