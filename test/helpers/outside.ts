import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';

/**
 * Whether a dockerd enforces `--internal` (it manages iptables: no `--iptables=false`): this machine's engine, or the
 * one listening on `socket` (a second engine, test/helpers/second-engine.ts).
 */
export function engineEnforcesInternal(socket?: string): boolean {
  const args = (pid: string): string[] => {
    try {
      return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
    } catch {
      return [];
    }
  };
  const pid = socket
    ? readdirSync('/proc').find(
        (p) => /^\d+$/.test(p) && args(p).includes(`unix://${socket}`) && /dockerd$/.test(args(p)[0] ?? ''),
      )
    : execFileSync('pidof', ['dockerd'], { encoding: 'utf8' }).trim().split(/\s+/)[0];
  if (!pid) throw new Error(`no dockerd${socket ? ` on ${socket}` : ''}`);
  return !args(pid).includes('--iptables=false');
}

/**
 * A stand-in for the outside: a network namespace behind a veth pair (root), two web servers in it (8080 `allowed`,
 * 8081 `refused`: each request they get is a line in `hits`), reached from a bridge only by forwarding through the
 * host (the way to the internet), never as one of the host's own addresses.
 */
export function startOutside(hits: string[]): { address: string; stop(): void } {
  const tag = randomBytes(3).toString('hex');
  const ns = `nexus-out-${tag}`;
  const host = `nxo${tag}h`;
  const ip = (...args: string[]): string => execFileSync('ip', args, { encoding: 'utf8' });
  ip('netns', 'add', ns);
  ip('link', 'add', host, 'type', 'veth', 'peer', 'name', `nxo${tag}n`);
  ip('link', 'set', `nxo${tag}n`, 'netns', ns);
  ip('addr', 'add', '198.51.100.1/30', 'dev', host);
  ip('link', 'set', host, 'up');
  ip('-n', ns, 'addr', 'add', '198.51.100.2/30', 'dev', `nxo${tag}n`);
  ip('-n', ns, 'link', 'set', `nxo${tag}n`, 'up');
  ip('-n', ns, 'route', 'add', 'default', 'via', '198.51.100.1');
  const servers = `for (const [port, label] of [[8080, 'allowed'], [8081, 'refused']])
    require('http').createServer((q, s) => { console.log(label, q.method, q.url); s.end(label); }).listen(port);`;
  const server: ChildProcess = spawn('ip', ['netns', 'exec', ns, process.execPath, '-e', servers], {
    stdio: ['ignore', 'pipe', 'ignore'],
    detached: true, // `ip netns exec` waits for its child: the group is stopped, not only `ip`
  });
  server.stdout?.on('data', (d: Buffer) => hits.push(...d.toString().trim().split('\n')));
  return {
    address: '198.51.100.2',
    stop: () => {
      if (server.pid) process.kill(-server.pid);
      execFileSync('ip', ['link', 'del', host]);
      execFileSync('ip', ['netns', 'del', ns]);
    },
  };
}
