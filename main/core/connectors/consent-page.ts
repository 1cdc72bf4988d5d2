import type { ServerResponse } from 'node:http';

/**
 * The public consent page: it never approves anything itself. It shows the short code and asks the
 * operator to approve in Nexus; it reloads itself every few seconds (no script), and the reload
 * after the operator's decision carries the client on. Never framed, nothing loaded from elsewhere.
 */
export const CONSENT_PAGE_POLICY =
  "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'; form-action 'none'; base-uri 'none'";

const escapeHtml = (s: string): string =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c);

export function sendConsentPage(
  res: ServerResponse,
  status: number,
  view: { title: string; lines: string[]; code?: string; refreshSeconds?: number },
): void {
  const refresh = view.refreshSeconds ? `<meta http-equiv="refresh" content="${view.refreshSeconds}">` : '';
  const code = view.code ? `<p class="code">${escapeHtml(view.code)}</p>` : '';
  const body =
    '<!doctype html><html lang="en"><head><meta charset="utf-8">' +
    '<meta name="viewport" content="width=device-width, initial-scale=1">' +
    `${refresh}<title>${escapeHtml(view.title)}</title>` +
    '<style>body{font:16px system-ui,sans-serif;max-width:28rem;margin:3rem auto;padding:0 1rem;color:#222}' +
    '.code{font:600 2rem ui-monospace,monospace;letter-spacing:.15em;margin:1.5rem 0}</style></head><body>' +
    `<h1>${escapeHtml(view.title)}</h1>${code}${view.lines.map((l) => `<p>${escapeHtml(l)}</p>`).join('')}` +
    '</body></html>';
  res.writeHead(status, {
    'content-type': 'text/html; charset=utf-8',
    'content-security-policy': CONSENT_PAGE_POLICY,
    'x-frame-options': 'DENY',
    'cache-control': 'no-store',
    'referrer-policy': 'no-referrer',
  });
  res.end(body);
}
