import { z } from 'zod';

/**
 * The listening TCP sockets of a container, with the process that holds each (its program's name, from its command line) (when the exec's user may see
 * it: the workspace's own user sees its own processes) and that process's working directory. One `docker
 * exec` of the helpers' pinned Node reads /proc: no `ss` or `netstat` is needed in the image.
 */
export const LISTENERS_SCRIPT = String.raw`
const fs = require('fs');
const socks = new Map();
for (const f of ['/proc/net/tcp', '/proc/net/tcp6']) {
  let t = '';
  try { t = fs.readFileSync(f, 'utf8'); } catch { continue; }
  for (const line of t.split('\n').slice(1)) {
    const c = line.trim().split(/\s+/);
    if (c[3] !== '0A') continue;
    const [addr, port] = c[1].split(':');
    socks.set(c[9], { address: addr, port: parseInt(port, 16) });
  }
}
const out = [];
const seen = new Set();
for (const pid of fs.readdirSync('/proc').filter((d) => /^[0-9]+$/.test(d))) {
  let fds = [];
  try { fds = fs.readdirSync('/proc/' + pid + '/fd'); } catch { continue; }
  for (const fd of fds) {
    let link = '';
    try { link = fs.readlinkSync('/proc/' + pid + '/fd/' + fd); } catch { continue; }
    const m = /^socket:\[([0-9]+)\]$/.exec(link);
    const s = m && socks.get(m[1]);
    if (!s || seen.has(m[1])) continue;
    seen.add(m[1]);
    let cwd = null, comm = null;
    try { cwd = fs.readlinkSync('/proc/' + pid + '/cwd'); } catch {}
    try { comm = fs.readFileSync('/proc/' + pid + '/cmdline', 'utf8').split('\0')[0].split('/').pop().slice(0, 64) || null; } catch {}
    out.push({ ...s, pid: Number(pid), cwd, process: comm });
  }
}
for (const [inode, s] of socks) if (!seen.has(inode)) out.push({ ...s, pid: null, cwd: null, process: null });
process.stdout.write(JSON.stringify(out));
`;

const RawListener = z.object({
  address: z.string().regex(/^[0-9A-F]{8}(?:[0-9A-F]{24})?$/),
  port: z.number().int().min(1).max(65535),
  pid: z.number().int().nullable(),
  cwd: z.string().max(4096).nullable(),
  process: z.string().max(64).nullable(),
});
const RawListeners = z.array(RawListener).max(10_000);

/** A port listened on in the container, with every process that holds a socket on it. */
export interface Listener {
  port: number;
  /** Every socket on it is bound to a loopback address (127.0.0.0/8, ::1): not reachable on the bridge. */
  loopbackOnly: boolean;
  /** IPv6 only (`::` or `::1`): what to connect to from inside the container. */
  ipv6Only: boolean;
  processes: { pid: number; cwd: string | null; process: string | null }[];
}

const LOOPBACK4 = /^[0-9A-F]{6}7F$/; // /proc/net/tcp holds the address as a little-endian word: 127.x.x.x ends in 7F
const LOOPBACK6 = new Set(['00000000000000000000000001000000', '0000000000000000FFFF00000100007F']);
const isLoopback = (a: string): boolean => (a.length === 8 ? LOOPBACK4.test(a) : LOOPBACK6.has(a));

/** The script's output, parsed (zod: it comes from inside the container) and grouped by port. */
export function parseListeners(stdout: string): Listener[] {
  const raw = RawListeners.parse(JSON.parse(stdout));
  const byPort = new Map<number, { addresses: string[]; processes: Listener['processes'] }>();
  for (const r of raw) {
    const p = byPort.get(r.port) ?? { addresses: [], processes: [] };
    p.addresses.push(r.address);
    if (r.pid !== null && !p.processes.some((x) => x.pid === r.pid))
      p.processes.push({ pid: r.pid, cwd: r.cwd, process: r.process });
    byPort.set(r.port, p);
  }
  return [...byPort.entries()]
    .sort(([a], [b]) => a - b)
    .map(([port, p]) => ({
      port,
      loopbackOnly: p.addresses.every(isLoopback),
      ipv6Only: p.addresses.every((a) => a.length === 32),
      processes: p.processes,
    }));
}
