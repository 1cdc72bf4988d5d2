import type { IncomingMessage } from 'node:http';

/** The names a loopback listener answers to. */
export const LOOPBACK_NAMES: readonly string[] = ['127.0.0.1', 'localhost', '[::1]'];

/** What a listener accepts as Host (`<name>:<port>`) and as Origin (`http://<name>:<port>`). */
export interface AllowList {
  hosts: ReadonlySet<string>;
  origins: ReadonlySet<string>;
}

/** The one allow-list of a listener: its names on its port (the loopback host's, or the workers' gateway). */
export function allowList(names: readonly string[], port: number): AllowList {
  return {
    hosts: new Set(names.map((n) => `${n}:${port}`)),
    origins: new Set(names.map((n) => `http://${n}:${port}`)),
  };
}

export type GuardVerdict = { ok: true } | { ok: false; reason: string };
const ALLOWED: GuardVerdict = { ok: true };

/**
 * DNS-rebinding and cross-site protection, checked once per request by the listener that took it
 * (every route behind it, /api/mcp included, relies on it): the Host header must name this
 * listener, and an Origin, when present, must be its own (so `null` and any other site are refused).
 */
export function checkHostAndOrigin(req: IncomingMessage, allowed: AllowList): GuardVerdict {
  const host = req.headers.host;
  if (!host || !allowed.hosts.has(host)) return { ok: false, reason: 'Host not allowed' };
  const origin = req.headers.origin;
  if (origin !== undefined && !allowed.origins.has(origin)) return { ok: false, reason: 'Origin not allowed' };
  return ALLOWED;
}
