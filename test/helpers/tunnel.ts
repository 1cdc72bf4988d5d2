import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { createServer as createHttpsServer, request as httpsRequest, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { join } from 'node:path';
import { tempDir } from './temp-dir';

/** The public name the tunnel stand-in answers for; resolved to 127.0.0.1 by the tunnel's fetch. */
export const PUBLIC_NAME = 'nexus.example.test';
/** A second public name on the same front (the operator moved the tunnel). */
export const OTHER_NAME = 'other.example.test';

/** A self-signed certificate for PUBLIC_NAME, made now with the openssl CLI (valid one day). */
function selfSignedCertificate(dir: string): { key: Buffer; cert: Buffer } {
  const key = join(dir, 'key.pem');
  const cert = join(dir, 'cert.pem');
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:P-256',
      '-nodes',
      '-days',
      '1',
      '-keyout',
      key,
      '-out',
      cert,
      '-subj',
      `/CN=${PUBLIC_NAME}`,
      '-addext',
      `subjectAltName=DNS:${PUBLIC_NAME},DNS:${OTHER_NAME}`,
    ],
    { stdio: 'ignore' },
  );
  return { key: readFileSync(key), cert: readFileSync(cert) };
}

const headerObject = (headers: Headers): Record<string, string> => {
  const out: Record<string, string> = {};
  headers.forEach((value, key) => (out[key] = value));
  return out;
};

export interface Tunnel {
  /** `https://nexus.example.test:<front port>`. */
  origin: string;
  frontPort: number;
  /** Where the front forwards to (Nexus's loopback port), once Nexus is up. */
  forwardTo(port: number): void;
  /** fetch through the front, verifying its certificate (no internet, no DNS). */
  fetch: typeof fetch;
  /** The front's certificate (PEM), for a browser told to trust it. */
  cert: Buffer;
  close(): Promise<void>;
}

/**
 * A stand-in for the operator's tunnel: an HTTPS front on loopback with a self-signed certificate
 * made now, forwarding every request to Nexus's loopback port with the public Host unchanged (as
 * Tailscale Funnel, cloudflared or ngrok do; it delivers from loopback).
 */
export async function startTunnel(): Promise<Tunnel> {
  const dir = tempDir('nexus-tunnel-');
  const tls = selfSignedCertificate(dir.path);
  let nexusPort = 0;
  const front: Server = createHttpsServer(tls, (req, res) => {
    const upstream = httpRequest(
      {
        host: '127.0.0.1',
        port: nexusPort,
        method: req.method,
        path: req.url,
        headers: { ...req.headers, 'x-forwarded-proto': 'https', 'x-forwarded-for': '203.0.113.9' },
      },
      (up) => {
        res.writeHead(up.statusCode ?? 502, up.headers);
        up.pipe(res);
      },
    );
    upstream.on('error', () => res.destroy());
    req.pipe(upstream);
  });
  // WebSockets too (the terminal), as the real tunnels forward them: the upgrade goes through as it came.
  front.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    const upstream = httpRequest({
      host: '127.0.0.1',
      port: nexusPort,
      method: req.method,
      path: req.url,
      headers: { ...req.headers, 'x-forwarded-proto': 'https', 'x-forwarded-for': '203.0.113.9' },
    });
    const statusLines = (res: IncomingMessage): string =>
      `HTTP/1.1 ${res.statusCode} ${res.statusMessage}\r\n${res.rawHeaders
        .map((v, i) => (i % 2 === 0 ? `${v}: ${res.rawHeaders[i + 1]}\r\n` : ''))
        .join('')}\r\n`;
    upstream.on('upgrade', (res, upSocket, upHead) => {
      socket.write(statusLines(res));
      if (upHead.length > 0) socket.write(upHead);
      if (head.length > 0) upSocket.write(head);
      upSocket.pipe(socket).pipe(upSocket);
      upSocket.on('error', () => socket.destroy());
      socket.on('error', () => upSocket.destroy());
    });
    upstream.on('response', (res) => {
      socket.write(statusLines(res));
      res.pipe(socket);
    });
    upstream.on('error', () => socket.destroy());
    upstream.end();
  });
  await new Promise<void>((resolve) => front.listen(0, '127.0.0.1', resolve));
  const frontPort = (front.address() as AddressInfo).port;
  const origin = `https://${PUBLIC_NAME}:${frontPort}`;
  const publicFetch = (async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const url = new URL(input instanceof Request ? input.url : input.toString());
    const method = init?.method ?? (input instanceof Request ? input.method : 'GET');
    const headers = new Headers(init?.headers ?? (input instanceof Request ? input.headers : undefined));
    const body = init?.body === undefined || init.body === null ? undefined : String(init.body as string);
    return new Promise<Response>((resolve, reject) => {
      const req = httpsRequest(
        {
          host: url.hostname,
          port: url.port,
          method,
          path: `${url.pathname}${url.search}`,
          headers: headerObject(headers),
          ca: tls.cert,
          servername: url.hostname,
          lookup: (_host, opts, cb) =>
            (opts as { all?: boolean }).all
              ? cb(null, [{ address: '127.0.0.1', family: 4 }] as never)
              : cb(null, '127.0.0.1', 4),
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => {
            const h = new Headers();
            for (const [k, v] of Object.entries(res.headers))
              for (const one of Array.isArray(v) ? v : v === undefined ? [] : [v]) h.append(k, one);
            const status = res.statusCode ?? 0;
            const text = Buffer.concat(chunks);
            resolve(new Response(status === 204 || status === 304 ? null : text, { status, headers: h }));
          });
        },
      );
      req.on('error', reject);
      req.end(body);
    });
  }) as typeof fetch;

  return {
    origin,
    frontPort,
    forwardTo: (port) => {
      nexusPort = port;
    },
    fetch: publicFetch,
    cert: tls.cert,
    close: async () => {
      await new Promise<void>((resolve) => front.close(() => resolve()));
      front.closeAllConnections();
      dir.remove();
    },
  };
}
