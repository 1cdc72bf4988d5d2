import { createConnection, createServer, type Server, type Socket } from 'node:net';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from './temp-dir';

/**
 * A unix socket that forwards to the real Docker socket. `cut()` drops every connection and stops
 * listening, so a core pointed at it sees the daemon vanish; `restore()` brings it back. `hold()`
 * keeps every request sent from then on (the answers to earlier ones still flow) until `release()`,
 * so a test can catch core in the middle of a Docker call; `held()` counts what waits. The shared
 * engine itself is never stopped.
 */
export async function dockerProxy(target = '/var/run/docker.sock'): Promise<{
  socketPath: string;
  cut(): Promise<void>;
  restore(): Promise<void>;
  hold(): void;
  held(): number;
  release(): void;
  close(): Promise<void>;
}> {
  const dir = tempDir('nexus-dproxy-');
  const socketPath = join(dir.path, 'docker.sock');
  const sockets = new Set<Socket>();
  let server: Server | null = null;
  let holding = false;
  // chunk null = the client ended its side (a half-close, as an exec's stdin end); passed on in order.
  let waiting: { upstream: Socket; chunk: Buffer | null }[] = [];
  const release = (): void => {
    holding = false;
    const queued = waiting;
    waiting = [];
    for (const w of queued) {
      if (w.upstream.destroyed) continue;
      if (w.chunk) w.upstream.write(w.chunk);
      else w.upstream.end();
    }
  };
  const listen = async (): Promise<void> => {
    rmSync(socketPath, { force: true });
    // Half-open both ways: docker exec ends stdin while its output still flows back.
    server = createServer({ allowHalfOpen: true }, (client) => {
      const upstream = createConnection({ path: target, allowHalfOpen: true });
      sockets.add(client).add(upstream);
      const drop = (): void => {
        client.destroy();
        upstream.destroy();
        sockets.delete(client);
        sockets.delete(upstream);
      };
      client.on('error', drop).on('close', drop);
      upstream.on('error', drop).on('close', drop);
      client.on('data', (chunk: Buffer) => {
        if (holding || waiting.some((w) => w.upstream === upstream)) waiting.push({ upstream, chunk });
        else upstream.write(chunk);
      });
      client.on('end', () => {
        if (waiting.some((w) => w.upstream === upstream)) waiting.push({ upstream, chunk: null });
        else upstream.end();
      });
      upstream.pipe(client);
    });
    await new Promise<void>((r) => server?.listen(socketPath, r));
  };
  const cut = async (): Promise<void> => {
    waiting = [];
    const s = server;
    server = null;
    for (const sock of sockets) sock.destroy();
    sockets.clear();
    if (s) await new Promise<void>((r) => s.close(() => r()));
    rmSync(socketPath, { force: true });
  };
  await listen();
  return {
    socketPath,
    cut,
    restore: listen,
    hold: () => {
      holding = true;
    },
    held: () => waiting.length,
    release,
    close: async () => {
      await cut();
      dir.remove();
    },
  };
}
