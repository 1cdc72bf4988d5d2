import type { IncomingMessage } from 'node:http';

/**
 * DNS-rebinding and cross-site protection for the loopback server: the Host header must name a
 * loopback address on our port, and an Origin, when present, must be our own (so `null` and any
 * other site are refused).
 */
export function allowedHosts(port: number): Set<string> {
  return new Set([`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`]);
}

export function allowedOrigins(port: number): Set<string> {
  return new Set([`http://127.0.0.1:${port}`, `http://localhost:${port}`, `http://[::1]:${port}`]);
}

export type GuardVerdict = { ok: true } | { ok: false; reason: string };

export function checkHostAndOrigin(
  req: IncomingMessage,
  hosts: ReadonlySet<string>,
  origins: ReadonlySet<string>,
): GuardVerdict {
  const host = req.headers.host;
  if (!host || !hosts.has(host)) return { ok: false, reason: 'Host not allowed' };
  const origin = req.headers.origin;
  if (origin !== undefined && !origins.has(origin)) return { ok: false, reason: 'Origin not allowed' };
  return { ok: true };
}
