import { readFileSync } from 'node:fs';
import { dockerExec } from '../test/helpers/agent-cli';
import { realDocker } from '../test/helpers/docker';

/**
 * What the real-agent benches read from a workspace container: its processes (CPU time, start time,
 * whose session), and the container's memory and CPU as the engine counts them.
 */

const TICK = 100; // USER_HZ on Linux

export interface ContainerProcess {
  pid: number;
  /** What it is: claude, nexus-mcp, the hook relay, or its command name. */
  kind: string;
  /** User + system CPU seconds so far. */
  cpu: number;
  rssBytes: number;
  /** When it started, on this host's performance.now() clock (containers share the host's kernel). */
  startedAt: number;
  /** NEXUS_SESSION_ID in its environment (the agent of that session), or ''. */
  session: string;
}

/** performance.now() at boot, from /proc/uptime (10 ms resolution, like a process's start time). */
function bootAt(): number {
  const up = Number(readFileSync('/proc/uptime', 'utf8').split(' ')[0]);
  return performance.now() - up * 1000;
}

const PS = `for p in /proc/[0-9]*; do
  s=$(cat $p/stat 2>/dev/null) || continue
  r=$(sed -n 's/^VmRSS:[^0-9]*\\([0-9]*\\).*/\\1/p' $p/status 2>/dev/null)
  c=$(tr '\\0\\n|' '   ' < $p/cmdline 2>/dev/null | cut -c1-160)
  e=$(tr '\\0' '\\n' < $p/environ 2>/dev/null | sed -n 's/^NEXUS_SESSION_ID=//p')
  printf '%s|%s|%s|%s\\n' "$s" "\${r:-0}" "$c" "$e"
done`;

/** Every process in the container the worker user can see. */
export async function processes(containerId: string): Promise<ContainerProcess[]> {
  const r = await dockerExec(containerId, ['sh', '-c', PS]);
  const boot = bootAt();
  const out: ContainerProcess[] = [];
  for (const line of r.stdout.split('\n')) {
    const m = /^(\d+) \((.*)\) (.*)$/.exec(line);
    if (!m) continue;
    const [stat, rss, cmd, session] = m[3]!.split('|');
    if (stat === undefined || cmd === undefined) continue;
    const f = stat.split(' ');
    const comm = m[2]!;
    const kind =
      comm === 'claude'
        ? 'claude'
        : cmd.includes('nexus-mcp')
          ? 'nexus-mcp'
          : cmd.includes('nexus-hook-relay')
            ? 'relay'
            : comm;
    out.push({
      pid: Number(m[1]),
      kind,
      cpu: (Number(f[11]) + Number(f[12])) / TICK,
      rssBytes: Number(rss) * 1024,
      startedAt: boot + (Number(f[19]) / TICK) * 1000,
      session: session ?? '',
    });
  }
  return out;
}

/** CPU seconds spent between two snapshots, by kind; what exited in between is `exited` (cgroup total less the rest). */
export function cpuByKind(
  before: ContainerProcess[],
  after: ContainerProcess[],
  cgroupSeconds: number,
): Record<string, number> {
  const was = new Map(before.map((p) => [p.pid, p.cpu]));
  const by: Record<string, number> = {};
  let seen = 0;
  for (const p of after) {
    const d = p.cpu - (was.get(p.pid) ?? 0);
    if (d <= 0) continue;
    by[p.kind] = (by[p.kind] ?? 0) + d;
    seen += d;
  }
  by.exited = Math.max(0, cgroupSeconds - seen);
  return by;
}

interface Stats {
  memory_stats: { usage?: number; stats?: Record<string, number> };
  cpu_stats: { cpu_usage: { total_usage: number } };
}

/** The container's memory (cgroup usage less inactive file cache, as `docker stats` shows it) and CPU seconds so far. */
export async function containerUsage(containerId: string): Promise<{ memoryBytes: number; cpuSeconds: number }> {
  const st = (await realDocker().getContainer(containerId).stats({ stream: false })) as Stats;
  const m = st.memory_stats;
  return {
    memoryBytes: (m.usage ?? 0) - (m.stats?.inactive_file ?? m.stats?.total_inactive_file ?? 0),
    cpuSeconds: st.cpu_stats.cpu_usage.total_usage / 1e9,
  };
}

export const mb = (bytes: number): number => Math.round((bytes / 1024 / 1024) * 10) / 10;
export const round = (x: number, digits = 2): number => Math.round(x * 10 ** digits) / 10 ** digits;
