import { createServer, type Server } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import type { PreviewSocket } from '../../main/core/previews/preview-dial';
import { parsePreviewHost } from '../../main/core/previews/preview-host';
import type { PreviewProxy, PreviewUpstream } from '../../main/core/previews/preview-proxy';

/** A server on an ephemeral loopback port; resolves to the port. */
export const listenLoopback = (s: Server): Promise<number> =>
  new Promise((resolve) => s.listen(0, '127.0.0.1', () => resolve((s.address() as AddressInfo).port)));

/** Closes servers at once: their open connections (keep-alive ones included) are cut first. */
export async function closeServers(...servers: Server[]): Promise<void> {
  for (const s of servers) s.closeAllConnections();
  await Promise.all(servers.map((s) => new Promise((r) => s.close(r))));
}

/** An app on loopback as a preview's upstream: each dial a new TCP connection to `port`. */
export const loopbackUpstream = (port: number, key = 'app'): PreviewUpstream => ({
  key,
  dial: () =>
    new Promise((resolve, reject) => {
      const s = connect(port, '127.0.0.1');
      s.once('connect', () => resolve(s as PreviewSocket));
      s.once('error', reject);
    }),
});

/**
 * The listener that takes preview origins as the host does (main/host): a request or upgrade whose Host names a
 * preview goes to `proxy`, anything else is 418. `port()` is known once `start` resolves.
 */
export function previewFront(proxy: () => PreviewProxy) {
  let port = 0;
  const server = createServer((req, res) => {
    const name = parsePreviewHost(req.headers.host, port);
    if (name) void proxy().handle(req, res, name);
    else res.writeHead(418).end();
  });
  server.on('upgrade', (req, socket, head) => {
    const name = parsePreviewHost(req.headers.host, port);
    if (name) proxy().upgrade(req, socket, head, name);
    else socket.destroy();
  });
  return {
    server,
    port: () => port,
    start: async () => (port = await listenLoopback(server)),
  };
}
