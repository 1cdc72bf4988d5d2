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
  /** What it is: claude, nexus-mcp (a session's stdio one), nexus-mcp-resident (the container's), the hook relay, or its command name. */
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
        : cmd.startsWith('/opt/nexus/node/bin/node ') && cmd.includes('nexus-mcp') && cmd.includes(' --serve ')
          ? 'nexus-mcp-resident'
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

/** Established TCP connections to 127.0.0.1:<port> in the container (the CLIs' to the resident nexus-mcp). */
async function connectionsTo(containerId: string, port: number): Promise<number> {
  const hex = port.toString(16).toUpperCase().padStart(4, '0');
  const r = await dockerExec(containerId, ['sh', '-c', `awk '$4 == "01" && $2 ~ /:${hex}$/' /proc/net/tcp | wc -l`]);
  return Number(r.stdout.trim()) || 0;
}

/**
 * The whole CPU nexus-mcp spent on these sessions once they settled (the CLI starts its MCP servers
 * after SessionStart, so most of it falls after a burst's last SessionStart): each session's own stdio
 * nexus-mcp, all of it, plus what the container's resident nexus-mcp spent since `before` (a snapshot
 * from before the sessions were created). Polls until every session has its stdio one or holds a
 * connection to the resident one, and the total has not grown for two polls (or `timeoutMs`). Seconds.
 */
export async function settledMcpCpu(
  containerId: string,
  sessions: string[],
  before: ContainerProcess[] = [],
  timeoutMs = 30_000,
  residentPort = 47_632,
): Promise<number> {
  const deadline = performance.now() + timeoutMs;
  const was = new Map(before.map((p) => [p.pid, p.cpu]));
  let last = -1;
  let still = 0;
  for (;;) {
    const procs = await processes(containerId);
    const mcp = procs.filter((p) => p.kind === 'nexus-mcp' && sessions.includes(p.session));
    const resident = procs.filter((p) => p.kind === 'nexus-mcp-resident');
    const total = mcp.reduce((s, p) => s + p.cpu, 0) + resident.reduce((s, p) => s + p.cpu - (was.get(p.pid) ?? 0), 0);
    const own = new Set(mcp.map((p) => p.session)).size;
    const viaResident = resident.length > 0 ? await connectionsTo(containerId, residentPort) : 0;
    const all = own + viaResident >= sessions.length;
    still = all && total === last ? still + 1 : 0;
    last = total;
    if (still >= 2 || performance.now() > deadline) return total;
    await new Promise((r) => setTimeout(r, 1000));
  }
}

/**
 * The CPU of the agent's SessionStart hook command, as its settings hold it, run `n` times in the
 * container with a SessionStart event for a session no one has (core drops it), against the live
 * relay: bash's `times` counts everything the command started. Seconds per run.
 */
export async function sessionStartHookCpu(containerId: string, n = 20): Promise<number> {
  const read = await dockerExec(containerId, [
    '/opt/nexus/node/bin/node',
    '-e',
    `const s = JSON.parse(require('fs').readFileSync(process.env.HOME + '/.claude/settings.json', 'utf8'));
     const h = s.hooks.SessionStart.flatMap((m) => m.hooks).find((x) => String(x.command).includes('nexus-hook'));
     process.stdout.write(h.command);`,
  ]);
  const relay = await dockerExec(containerId, [
    'sh',
    '-c',
    "tr '\\0' '\\n' < /proc/$(pgrep -n -f '^/opt/nexus/node/bin/node .*nexus-hook-relay')/cmdline",
  ]);
  const workspaceId = relay.stdout.split('\n')[4] ?? '';
  if (read.exitCode !== 0 || !read.stdout || !workspaceId) throw new Error(`SessionStart hook probe: ${read.stderr}`);
  const script = `export NEXUS_SESSION_ID=bench-hook-probe NEXUS_WORKSPACE_ID="$2"
export CLAUDE_CODE_MESSAGING_SOCKET=/tmp/bench-hook-probe.sock CLAUDE_CODE_MESSAGING_TOKEN=t
i=0; while [ $i -lt ${n} ]; do
  echo '{"hook_event_name":"SessionStart","session_id":"bench-hook-probe","source":"startup"}' | sh -c "$1" >/dev/null 2>&1
  i=$((i + 1))
done
rm -rf /tmp/nexus-sessions/bench-hook-probe
times > /tmp/bench-hook-probe.times # not in a pipe: a subshell's children are not the loop's
tail -1 /tmp/bench-hook-probe.times`;
  const r = await dockerExec(containerId, ['bash', '-c', script, 'probe', read.stdout, workspaceId]);
  const m = /(\d+)m([\d.]+)s (\d+)m([\d.]+)s/.exec(r.stdout);
  if (r.exitCode !== 0 || !m) throw new Error(`SessionStart hook probe: ${r.stderr || r.stdout}`);
  return (Number(m[1]) * 60 + Number(m[2]) + Number(m[3]) * 60 + Number(m[4])) / n;
}
