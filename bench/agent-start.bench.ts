import type { Session } from '../shared/contract/sessions';
import { dockerExec } from '../test/helpers/agent-cli';
import { realDocker } from '../test/helpers/docker';
import { startRealAgentFleet, type RealAgentFleet } from '../test/helpers/real-agent-fleet';
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
 * Targets (issue #16): single p50 <= 1.5 s, 10 concurrent all started <= 5 s, idle session RSS <= 400 MB.
 */
const SINGLE = 5;
const BURST = 10;

function stats(samples: number[], elapsedMs: number): Measurement {
  const s = [...samples].sort((a, b) => a - b);
  const pct = (p: number): number => s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? 0;
  return { n: s.length, p50Ms: pct(50), p95Ms: pct(95), p99Ms: pct(99), perSecond: (s.length / elapsedMs) * 1000 };
}

/** Creates a session and resolves with the milliseconds until its SessionStart reached core. */
function startTime(fleet: RealAgentFleet, workspace: string, name: string): Promise<{ ms: number; id: string }> {
  const t0 = performance.now();
  return new Promise((resolve, reject) => {
    let id = '';
    const early: Session[] = [];
    const done = (s: Session): void => {
      if (s.status === 'error') return reject(new Error(`${name}: ${s.reason ?? 'error'}`));
      if (s.agentState === 'starting') return;
      sub.dispose();
      resolve({ ms: performance.now() - t0, id: s.id });
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
        id = s.id;
        early.filter((e) => e.id === id).forEach(done);
      })
      .catch(reject);
  });
}

/** Workspace container memory in bytes: cgroup usage less inactive file cache (what `docker stats` shows). */
async function containerMemory(containerId: string): Promise<number> {
  const st = (await realDocker().getContainer(containerId).stats({ stream: false })) as {
    memory_stats: { usage?: number; stats?: Record<string, number> };
  };
  const m = st.memory_stats;
  return (m.usage ?? 0) - (m.stats?.inactive_file ?? m.stats?.total_inactive_file ?? 0);
}

const mb = (bytes: number): number => Math.round((bytes / 1024 / 1024) * 10) / 10;

const bench: Benchmark = async () => {
  const fleet = await startRealAgentFleet();
  try {
    const ws = 'agentbench';
    const w = await fleet.createWorkspace(ws);
    const containerId = w.containerId as string;
    const idleBefore = await containerMemory(containerId);

    const version: number[] = [];
    const vStart = performance.now();
    for (let i = 0; i < SINGLE; i++) {
      const t = performance.now();
      const r = await dockerExec(containerId, ['claude', '--version']);
      if (r.exitCode !== 0) throw new Error(`claude --version: ${r.stderr}`);
      version.push(performance.now() - t);
    }
    const base = stats(version, performance.now() - vStart);

    const single: number[] = [];
    const sStart = performance.now();
    for (let i = 0; i < SINGLE; i++) {
      const { ms, id } = await startTime(fleet, ws, `one${i}`);
      single.push(ms);
      if (i < SINGLE - 1) await fleet.call('sessions.delete', { session: id, deleteBranch: true });
    }
    const singleM = stats(single, performance.now() - sStart);

    // One idle real session (the last single one): let it settle, then read its memory.
    const [last] = (await fleet.call('sessions.list', { workspace: ws })).sessions;
    await fleet.waitForSession(last!.id, 'idle');
    await new Promise((r) => setTimeout(r, 5000));
    const idleWithOne = await containerMemory(containerId);
    const rss = await dockerExec(containerId, [
      'sh',
      '-c',
      'for p in /proc/[0-9]*; do [ "$(cat $p/comm 2>/dev/null)" = claude ] && grep VmRSS $p/status; done',
    ]);
    const claudeRss = Number(/VmRSS:\s+(\d+) kB/.exec(rss.stdout)?.[1] ?? 0) * 1024;
    await fleet.call('sessions.delete', { session: last!.id, deleteBranch: true });

    const bStart = performance.now();
    const burst = await Promise.all(Array.from({ length: BURST }, (_, i) => startTime(fleet, ws, `burst${i}`)));
    const allStarted = performance.now() - bStart;
    const burstM = stats(
      burst.map((b) => b.ms),
      allStarted,
    );

    const figures: Figure[] = [
      {
        ...compare(
          'real agent: session create -> SessionStart (single)',
          'docker exec claude --version',
          singleM,
          base,
          'p50 <= 1500 ms; idle session RSS <= 400 MB',
        ),
        // The memory of one idle real session, beside the same container with none.
        extra: {
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
        extra: { allStartedMs: Math.round(allStarted) },
      },
    ];
    return figures;
  } finally {
    await fleet.dispose();
  }
};
export default bench;
