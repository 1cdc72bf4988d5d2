import type { Session } from '../shared/contract/sessions';
import { dockerExec } from '../test/helpers/agent-cli';
import { startRealAgentFleet, type RealAgentFleet } from '../test/helpers/real-agent-fleet';
import {
  containerUsage,
  cpuByKind,
  mb,
  processes,
  round,
  sessionStartHookCpu,
  settledMcpCpu,
  type ContainerProcess,
} from './agent-probe';
import { compare, type Benchmark, type Figure, type Measurement } from './lib';

/**
 * The real pinned agent CLI through a whole Nexus (test/helpers/real-agent-fleet.ts: the `nexus`
 * bridge, the model stand-in as NEXUS_AGENT_BASE_URL, the vault's credential):
 *  - session create -> SessionStart (the session's first hook, agentState leaves `starting`), one at
 *    a time and 10 at once in one workspace, against a bare `docker exec <container> claude --version`
 *    in the same container (the binary starting, nothing of Nexus);
 *  - the memory of an idle real session: its `claude` process's RSS, and the workspace container's
 *    memory (cgroup usage less inactive file cache) with one idle session beside the same container
 *    with none, measured in the same run.
 *  - ten bare CLI starts at once in the same container, in the same run (`claude -p` with a fresh HOME,
 *    the same stand-in and key, a SessionStart command hook that writes a timestamp: the binary and
 *    its first hook, nothing of Nexus), against which the ten Nexus starts are put (issue #31, item 5):
 *    Nexus's part (create -> the agent's process starts) of the wall, the whole against the bare wall,
 *    and Nexus's own CPU per start: what nexus-mcp spent on each session, whole, once it settled (the
 *    container's resident one since before the burst, or each session's stdio one; the CLI connects
 *    after SessionStart); the SessionStart hook command as the settings hold it, run 20 times in the
 *    container against the live relay (bash `times`); the relay's CPU in the burst. (`cpuSeconds_exited`,
 *    the cgroup's total less the live processes', stays as printed; docker's stats lag, so it reads low.)
 * Targets (issue #16): single p50 <= 1.5 s, 10 concurrent all started <= 5 s, idle session RSS <= 400 MB.
 * Targets (issue #31): Nexus's part <= 10 % of the wall, the whole <= 1.15x the bare ten, Nexus's CPU <= 0.1 s a start.
 */
const SINGLE = 5;
const BURST = 10;

function stats(samples: number[], elapsedMs: number): Measurement {
  const s = [...samples].sort((a, b) => a - b);
  const pct = (p: number): number => s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? 0;
  return { n: s.length, p50Ms: pct(50), p95Ms: pct(95), p99Ms: pct(99), perSecond: (s.length / elapsedMs) * 1000 };
}

interface Start {
  id: string;
  /** create call -> SessionStart reached core. */
  ms: number;
  t0: number;
  /** When the create call returned, the session went `running` (its window open), SessionStart reached core. */
  returnedAt: number;
  runningAt: number;
  startedAt: number;
}

/** Creates a session and resolves when its SessionStart reached core (agentState leaves `starting`). */
function startSession(fleet: RealAgentFleet, workspace: string, name: string): Promise<Start> {
  const t0 = performance.now();
  let returnedAt = 0;
  let runningAt = 0;
  return new Promise((resolve, reject) => {
    let id = '';
    const early: Session[] = [];
    const done = (s: Session): void => {
      if (s.status === 'error') return reject(new Error(`${name}: ${s.reason ?? 'error'}`));
      if (s.status === 'running' && !runningAt) runningAt = performance.now();
      if (s.agentState === 'starting') return;
      sub.dispose();
      const startedAt = performance.now();
      resolve({ id: s.id, ms: startedAt - t0, t0, returnedAt, runningAt: runningAt || startedAt, startedAt });
    };
    const sub = fleet.running.core.events.subscribe((m) => {
      const s = (m.payload as { session?: Session | null }).session;
      if (m.name !== 'sessions.changed' || !s || s.name !== name || s.workspaceName !== workspace) return;
      if (id) done(s);
      else early.push(s);
    });
    fleet
      .createSession(workspace, { name, initialMessage: 'benchmark this' })
      .then((s) => {
        returnedAt = performance.now();
        id = s.id;
        early.filter((e) => e.id === id).forEach(done);
      })
      .catch(reject);
  });
}

/**
 * Ten bare `claude -p` at once in the container, as the worker user: wall from the first spawn to the
 * last SessionStart hook (each writes its time), and the container's CPU over it.
 */
async function bareBurst(containerId: string, baseUrl: string, key: string): Promise<{ wallMs: number; cpuS: number }> {
  const hook = (i: number): string =>
    JSON.stringify({
      hooks: { SessionStart: [{ hooks: [{ type: 'command', command: `date +%s%N > /tmp/bare/t.${i}` }] }] },
    });
  const spawns = Array.from(
    { length: BURST },
    (_, i) =>
      `mkdir -p /tmp/bare/h${i}; HOME=/tmp/bare/h${i} claude -p hi --settings '${hook(i)}' </dev/null >/dev/null 2>&1 &`,
  ).join('\n');
  const script = `rm -rf /tmp/bare; mkdir -p /tmp/bare
export ANTHROPIC_BASE_URL='${baseUrl}' ANTHROPIC_API_KEY='${key}' CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 DISABLE_AUTOUPDATER=1
t0=$(date +%s%N)
${spawns}
i=0; while [ "$(ls /tmp/bare | grep -c '^t[.]')" -lt ${BURST} ] && [ $i -lt 1200 ]; do sleep 0.05; i=$((i + 1)); done
echo "$t0"; cat /tmp/bare/t.*; wait`;
  const cpu0 = (await containerUsage(containerId)).cpuSeconds;
  const r = await dockerExec(containerId, ['sh', '-c', script]);
  const cpuS = (await containerUsage(containerId)).cpuSeconds - cpu0;
  const [t0, ...ts] = r.stdout.trim().split('\n').map(Number);
  if (ts.length < BURST) throw new Error(`bare claude: ${ts.length} of ${BURST} SessionStart hooks ran: ${r.stderr}`);
  return { wallMs: (Math.max(...ts) - t0!) / 1e6, cpuS };
}

const p50 = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;

/**
 * Where each start went (p50 over the sessions, ms): the create call (its checks), the call's return
 * to the agent process starting (queue, execs, worktree, window), the agent's start to its
 * SessionStart reaching core (the CLI's own start, the hook command, relay, NATS, core).
 */
function phases(starts: Start[], procs: ContainerProcess[]): Record<string, number> {
  const cliAt = new Map(procs.filter((p) => p.kind === 'claude').map((p) => [p.session, p.startedAt]));
  const rows = starts.map((s) => ({ ...s, cliAt: cliAt.get(s.id) ?? Number.NaN }));
  return {
    createCallMs: Math.round(p50(rows.map((r) => r.returnedAt - r.t0))),
    toAgentProcessMs: Math.round(p50(rows.map((r) => r.cliAt - r.t0))),
    agentToSessionStartMs: Math.round(p50(rows.map((r) => r.startedAt - r.cliAt))),
    toRunningMs: Math.round(p50(rows.map((r) => r.runningAt - r.t0))),
  };
}

const bench: Benchmark = async () => {
  // NEXUS_MCP_RESIDENT=0: each session's stdio nexus-mcp, for the before/after (docs/performance.md).
  const fleet = await startRealAgentFleet(
    process.env.NEXUS_MCP_RESIDENT === '0' ? { sessions: { residentMcp: false } } : {},
  );
  try {
    const ws = 'agentbench';
    const w = await fleet.createWorkspace(ws);
    const containerId = w.containerId as string;
    const idleBefore = (await containerUsage(containerId)).memoryBytes;

    const version: number[] = [];
    const vStart = performance.now();
    for (let i = 0; i < SINGLE; i++) {
      const t = performance.now();
      const r = await dockerExec(containerId, ['claude', '--version']);
      if (r.exitCode !== 0) throw new Error(`claude --version: ${r.stderr}`);
      version.push(performance.now() - t);
    }
    const base = stats(version, performance.now() - vStart);

    const single: Start[] = [];
    const singleProcs: ContainerProcess[] = [];
    const singleCpu: number[] = [];
    const sStart = performance.now();
    for (let i = 0; i < SINGLE; i++) {
      const cpu0 = (await containerUsage(containerId)).cpuSeconds;
      const s = await startSession(fleet, ws, `one${i}`);
      single.push(s);
      singleProcs.push(...(await processes(containerId)));
      // The first start also installs the worker tools and starts the relay.
      if (i > 0) singleCpu.push((await containerUsage(containerId)).cpuSeconds - cpu0);
      if (i < SINGLE - 1) await fleet.call('sessions.delete', { session: s.id, deleteBranch: true });
    }
    const singleM = stats(
      single.map((s) => s.ms),
      performance.now() - sStart,
    );

    // One idle real session (the last single one): let it settle, then read its memory.
    const last = single[single.length - 1]!;
    await fleet.waitForSession(last.id, 'idle');
    await new Promise((r) => setTimeout(r, 5000));
    const idleWithOne = (await containerUsage(containerId)).memoryBytes;
    const claudeRss = (await processes(containerId)).find((p) => p.kind === 'claude')?.rssBytes ?? 0;
    // The stand-in's address as the sessions see it, for the bare CLI.
    const env = await dockerExec(containerId, [
      'sh',
      '-c',
      `for p in /proc/[0-9]*; do [ "$(cat $p/comm 2>/dev/null)" = claude ] && tr '\\0' '\\n' < $p/environ; done | sed -n 's/^ANTHROPIC_BASE_URL=//p' | head -1`,
    ]);
    const baseUrl = env.stdout.trim();
    await fleet.call('sessions.delete', { session: last.id, deleteBranch: true });
    await new Promise((r) => setTimeout(r, 2000));

    const before = await processes(containerId);
    const cpu0 = (await containerUsage(containerId)).cpuSeconds;
    const bStart = performance.now();
    const burst = await Promise.all(Array.from({ length: BURST }, (_, i) => startSession(fleet, ws, `burst${i}`)));
    const allStarted = performance.now() - bStart;
    const cpu1 = (await containerUsage(containerId)).cpuSeconds;
    const after = await processes(containerId);
    const burstM = stats(
      burst.map((b) => b.ms),
      allStarted,
    );
    const burstCpu = cpuByKind(before, after, cpu1 - cpu0);
    // What Nexus starts per session, each measured whole: its nexus-mcp (the CLI starts it after
    // SessionStart, so the window above sees little of it), its SessionStart hook command, the relay.
    const mcpCpu = await settledMcpCpu(
      containerId,
      burst.map((b) => b.id),
      before,
    );
    // The resident nexus-mcp's own start (once per container) and the five single sessions it served.
    const residentBefore = before.find((p) => p.kind === 'nexus-mcp-resident')?.cpu ?? null;
    const hookCpu = await sessionStartHookCpu(containerId);
    const bare = await bareBurst(containerId, baseUrl, fleet.env.canary);
    const cliAt = after.filter((p) => p.kind === 'claude' && burst.some((b) => b.id === p.session));
    const lastAgentAt = Math.max(...cliAt.map((p) => p.startedAt));
    const nexusCpuPerStart = mcpCpu / BURST + hookCpu + (burstCpu.relay ?? 0) / BURST;

    const figures: Figure[] = [
      {
        ...compare(
          'real agent: session create -> SessionStart (single)',
          'docker exec claude --version',
          singleM,
          base,
          'p50 <= 1500 ms; idle session RSS <= 400 MB',
        ),
        extra: {
          ...phases(single, singleProcs),
          containerCpuSecondsPerStart: round(p50(singleCpu)),
          // The memory of one idle real session, beside the same container with none.
          idleClaudeRssMb: mb(claudeRss),
          containerWithOneIdleSessionMb: mb(idleWithOne),
          containerWithNoSessionMb: mb(idleBefore),
        },
      },
      {
        ...compare(
          'real agent: session create -> SessionStart (10 concurrent, one workspace)',
          'docker exec claude --version',
          burstM,
          base,
          'all started <= 5000 ms',
        ),
        extra: {
          allStartedMs: Math.round(allStarted),
          ...phases(burst, after),
          // Container CPU seconds from the first create to the last SessionStart, by process.
          ...Object.fromEntries(Object.entries(burstCpu).map(([k, v]) => [`cpuSeconds_${k}`, round(v)])),
          // Issue #31, item 5: the same ten against ten bare CLI starts in this container, this run.
          nexusPartOfWall: round((lastAgentAt - bStart) / allStarted),
          bareTenAllStartedMs: Math.round(bare.wallMs),
          wholeOverBareTen: round(allStarted / bare.wallMs),
          bareTenCpuSeconds: round(bare.cpuS),
          nexusCpuSecondsPerStart: round(nexusCpuPerStart, 3),
          nexusMcpCpuSecondsPerStart: round(mcpCpu / BURST, 3),
          sessionStartHookCpuSeconds: round(hookCpu, 3),
          relayCpuSecondsPerStart: round((burstCpu.relay ?? 0) / BURST, 3),
          // 'none': the sessions ran a stdio nexus-mcp each (NEXUS_MCP_RESIDENT=0, or it did not start).
          residentMcpCpuSecondsBeforeBurst: residentBefore === null ? 'none' : round(residentBefore, 3),
        },
      },
    ];
    return figures;
  } finally {
    await fleet.dispose();
  }
};
export default bench;
