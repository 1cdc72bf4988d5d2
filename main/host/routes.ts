import { isOpName, type OpName } from '../../shared/contract';

/**
 * Strict, case-sensitive routing on the raw request path. Authorization decisions key on the
 * matched route, never on the path text: anything not matched exactly here (`/API/MCP`,
 * `/api/mcp/`, `//api/mcp`, `%2F`-encoded variants, dot segments) is simply no route.
 */
export type Route =
  | { kind: 'login' }
  | { kind: 'asset'; path: string }
  | { kind: 'rpc'; op: OpName }
  | { kind: 'events' }
  | { kind: 'mount'; path: string };

/** Only these characters may appear in a path we route; `%` (encoding) is refused outright. */
const SAFE_PATH = /^\/(?:[A-Za-z0-9_-][A-Za-z0-9._-]*(?:\/[A-Za-z0-9_-][A-Za-z0-9._-]*)*)?$/;
const RPC = /^\/api\/rpc\/([a-z][A-Za-z]*(?:\.[a-z][A-Za-z]*)+)$/;

export function splitUrl(rawUrl: string): { path: string; query: URLSearchParams } {
  const q = rawUrl.indexOf('?');
  return q < 0
    ? { path: rawUrl, query: new URLSearchParams() }
    : { path: rawUrl.slice(0, q), query: new URLSearchParams(rawUrl.slice(q + 1)) };
}

export function matchRoute(
  method: string,
  path: string,
  mounts: ReadonlySet<string>,
  assets: ReadonlySet<string>,
): Route | null {
  if (!SAFE_PATH.test(path)) return null;
  if (mounts.has(path)) return { kind: 'mount', path };
  if (path === '/api/events') return method === 'GET' ? { kind: 'events' } : null;
  const rpc = RPC.exec(path);
  if (rpc) {
    const op = rpc[1] ?? '';
    return method === 'POST' && isOpName(op) ? { kind: 'rpc', op } : null;
  }
  if (method !== 'GET' && method !== 'HEAD') return null;
  if (path === '/') return { kind: 'login' };
  if (assets.has(path)) return { kind: 'asset', path };
  return null;
}
