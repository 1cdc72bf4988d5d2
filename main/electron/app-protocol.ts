import { realpathSync } from 'node:fs';
import { extname, join, normalize, sep } from 'node:path';
import { CONTENT_SECURITY_POLICY } from '../host/static-files';

/**
 * Maps an `app://nexus/<path>` URL to a file under the renderer root, or null. Pure apart from
 * resolving symlinks: traversal (`..`, encoded or not) and symlinks that leave the root give null.
 */
export function resolveAppFile(root: string, url: string): string | null {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return null;
  }
  if (parsed.protocol !== 'app:' || parsed.host !== 'nexus') return null;
  let path: string;
  try {
    path = decodeURIComponent(parsed.pathname);
  } catch {
    return null;
  }
  if (path.includes('\0') || path.split('/').includes('..')) return null;
  const rel = path === '/' ? 'index.html' : path.replace(/^\/+/, '');
  const candidate = normalize(join(root, rel));
  try {
    const realRoot = realpathSync(root);
    const real = realpathSync(candidate);
    return real === realRoot || real.startsWith(realRoot + sep) ? real : null;
  } catch {
    return null;
  }
}

export const appResponseHeaders = (file: string): Record<string, string> => ({
  'content-type':
    extname(file) === '.html'
      ? 'text/html; charset=utf-8'
      : extname(file) === '.js'
        ? 'text/javascript'
        : extname(file) === '.css'
          ? 'text/css'
          : 'application/octet-stream',
  'content-security-policy': CONTENT_SECURITY_POLICY,
  'x-content-type-options': 'nosniff',
});
