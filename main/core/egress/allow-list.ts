import { isIP } from 'node:net';
import { domainToASCII } from 'node:url';

// A workspace's egress allow-list: which host:port its proxy connects to (docs/security.md, "Egress by allow-list").
// An entry is `host`, `host:port`, `*.suffix` or `*.suffix:port`, an IPv4 literal or a bracketed IPv6 literal.
// Names are compared in their ASCII (punycode) lowercase form without a trailing dot, so `Ex.COM.` and an IDN's
// Unicode spelling match the same entry; an IP literal matches only the same literal (never a wildcard), so a
// name's entry never opens an address.

export interface AllowEntry {
  /** The ASCII lowercase host, the suffix of a wildcard (without `*.`), or the IP literal (IPv6 without brackets). */
  host: string;
  wildcard: boolean;
  ip: boolean;
  /** null: the web's ports, 443 for CONNECT and 80 for plain http. */
  port: number | null;
}

/** The ports an entry without one allows: https through CONNECT, plain http forwarded. */
export const WEB_PORTS: ReadonlySet<number> = new Set([80, 443]);

const LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;

/** A host name or IP literal in the form entries are compared in; null when it is neither. */
export function canonicalHost(raw: string): { host: string; ip: boolean } | null {
  let h = raw.trim();
  if (h.startsWith('[') && h.endsWith(']')) h = h.slice(1, -1);
  if (isIP(h)) return { host: h.toLowerCase(), ip: true };
  if (h.endsWith('.')) h = h.slice(0, -1);
  const ascii = domainToASCII(h);
  if (!ascii || ascii.length > 253) return null;
  const labels = ascii.split('.');
  if (labels.length < 1 || !labels.every((l) => LABEL.test(l))) return null;
  // All-digit dotted names are IPv4 in another spelling (0x7f.1, 2130706433): refused rather than guessed.
  if (labels.every((l) => /^(0x[0-9a-f]*|[0-9]+)$/.test(l))) return null;
  return { host: ascii, ip: false };
}

/** Parses one entry; the reason when it is not one. */
export function parseAllowEntry(raw: string): AllowEntry | { error: string } {
  const text = raw.trim();
  let hostPart = text;
  let port: number | null = null;
  const bracketed = /^\[([^\]]+)\](?::(\d+))?$/.exec(text);
  if (bracketed) {
    hostPart = bracketed[1] ?? '';
    if (bracketed[2] !== undefined) port = Number(bracketed[2]);
  } else if (!isIP(text)) {
    const m = /^(.*):(\d+)$/.exec(text);
    if (m) {
      hostPart = m[1] ?? '';
      port = Number(m[2]);
    }
  }
  if (port !== null && (!Number.isInteger(port) || port < 1 || port > 65535))
    return { error: `"${raw}": the port must be 1-65535` };
  const wildcard = hostPart.startsWith('*.');
  const canonical = canonicalHost(wildcard ? hostPart.slice(2) : hostPart);
  if (!canonical) return { error: `"${raw}" is not a host name, *.domain or IP address` };
  if (wildcard && canonical.ip) return { error: `"${raw}": a wildcard is for names, not addresses` };
  if (wildcard && !canonical.host.includes('.'))
    return { error: `"${raw}": a wildcard needs a domain with a dot (*.example.com), not a top-level domain` };
  return { host: canonical.host, wildcard, ip: canonical.ip, port };
}

/** Every entry parsed; throws nothing: the ones that are not entries come back as errors. */
export function parseAllowList(raw: readonly string[]): { entries: AllowEntry[]; errors: string[] } {
  const entries: AllowEntry[] = [];
  const errors: string[] = [];
  for (const r of raw) {
    const e = parseAllowEntry(r);
    if ('error' in e) errors.push(e.error);
    else entries.push(e);
  }
  return { entries, errors };
}

/** An entry as the operator sees it. */
export const formatAllowEntry = (e: AllowEntry): string => {
  const host = e.ip && e.host.includes(':') ? `[${e.host}]` : e.host;
  return `${e.wildcard ? '*.' : ''}${host}${e.port === null ? '' : `:${e.port}`}`;
};

/**
 * The entry that lets the proxy reach host:port, or null. `defaultPort` is the one port an entry without a port opens
 * for this request: 443 for CONNECT, 80 for plain http (and any explicit port must be named).
 */
export function matchAllowList(
  entries: readonly AllowEntry[],
  rawHost: string,
  port: number,
  defaultPort: 80 | 443,
): AllowEntry | null {
  const target = canonicalHost(rawHost);
  if (!target) return null;
  for (const e of entries) {
    if ((e.port ?? defaultPort) !== port) continue;
    if (e.ip || target.ip) {
      if (e.ip && target.ip && sameIp(e.host, target.host)) return e;
      continue;
    }
    if (e.wildcard ? target.host.endsWith(`.${e.host}`) : target.host === e.host) return e;
  }
  return null;
}

/** IPv6 literals compare by value (`::1` and `0:0::1`); IPv4 as written (isIP accepts only the dotted quad). */
function sameIp(a: string, b: string): boolean {
  if (a === b) return true;
  if (isIP(a) !== 6 || isIP(b) !== 6) return false;
  return new URL(`http://[${a}]/`).hostname === new URL(`http://[${b}]/`).hostname;
}
