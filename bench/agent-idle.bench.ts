import { spawn } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import { request } from 'node:http';
import { startRealAgentWorkspace } from '../e2e/fixtures/real-agent-workspace';
import { readUntil } from '../test/helpers/wait';
import { containerUsage, mb, processes, round } from './agent-probe';
import { compare, measure, type Benchmark } from './lib';

const IDLE_SECONDS = Number(process.env.NEXUS_BENCH_IDLE_SECONDS ?? 60);
const PER_WORKSPACE = 10;
const TICK = 100; // USER_HZ on Linux

/** RSS (bytes) and CPU seconds of a host process, from /proc. */
function sample(pid: number): { rss: number; cpu: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const rss = Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? 0) * 1024;
  const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return { rss, cpu: (Number(f[11]) + Number(f[12])) / TICK };
}

/** The nats-server core started as its child. */
function natsChild(corePid: number): number | null {
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const stat = readFileSync(`/proc/${d}/stat`, 'utf8');
      const [comm, rest] = [stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')), stat.split(') ')[1]!];
      if (comm === 'nats-server' && Number(rest.split(' ')[1]) === corePid) return Number(d);
    } catch {
      // gone meanwhile
    }
  }
  return null;
}

function get(url: string): Promise<void> {
  return new Promise((resolve, reject) => {
    request(url, (res) => {
      res.resume();
      res.on('end', () => resolve());
    })
      .on('error', reject)
      .end();
  });
}

/**
 * The idle footprint with 20 REAL sessions: `nexus serve` (the built CLI) running the pinned agent
 * CLI against the model stand-in (e2e/fixtures/real-agent-workspace.ts), 10 sessions in each of two
 * workspaces, every one idle after its first turn. Over IDLE_SECONDS: core's CPU % and RSS, its
 * nats-server's, each workspace container's (cgroup CPU, memory less inactive file cache) and its
 * processes', beside a bare node:http process idling in the same run. The figure itself is
 * `sessions.list` over the HTTP API with the fleet idle, against a GET to the bare server.
 * Targets (issue #16): core < 1 % CPU, <= 150 MB RSS.
 */
const bench: Benchmark = async () => {
  const bare = spawn(
    process.execPath,
    [
      '-e',
      "require('http').createServer((q,s)=>s.end('ok')).listen(0,'127.0.0.1',function(){console.log(this.address().port)})",
    ],
    { stdio: ['ignore', 'pipe', 'ignore'] },
  );
  const barePort = await new Promise<number>((r) => bare.stdout.once('data', (d: Buffer) => r(Number(d.toString()))));
  const real = await startRealAgentWorkspace();
  const { nexus } = real;
  const names = [real.name, `${real.name}-b`];
  try {
    await nexus.rpc('workspaces.create', { name: names[1], repoUrl: real.env.repo.url });
    const second = await readUntil(
      () => nexus.rpc<{ status: string; containerId: string }>('workspaces.get', { workspace: names[1] }),
      (w) => w.status === 'running' || w.status === 'error',
      300_000,
    );
    if (second.status !== 'running') throw new Error(`workspace ${names[1]}: ${second.status}`);
    const containers = [real.containerId, second.containerId];
    // Ten at a time per workspace, as an operator starting a fleet would.
    for (const ws of names)
      await Promise.all(
        Array.from({ length: PER_WORKSPACE }, (_, i) =>
          nexus.rpc('sessions.create', { workspace: ws, name: `idle${i}`, initialMessage: 'idle benchmark' }),
        ),
      );
    const total = names.length * PER_WORKSPACE;
    await readUntil(
      () => nexus.rpc<{ sessions: { agentState: string; status: string }[] }>('sessions.list', {}),
      (l) => {
        if (l.sessions.some((s) => s.status === 'error')) throw new Error('a session failed to start');
        return l.sessions.filter((s) => s.agentState === 'idle').length === total;
      },
      600_000,
    );
    await new Promise((r) => setTimeout(r, 10_000)); // let start-up settle

    const corePid = nexus.process.pid!;
    const natsPid = natsChild(corePid);
    const before = {
      core: sample(corePid),
      nats: natsPid ? sample(natsPid) : null,
      bare: sample(bare.pid!),
      containers: await Promise.all(containers.map(containerUsage)),
    };
    await new Promise((r) => setTimeout(r, IDLE_SECONDS * 1000));
    const after = {
      core: sample(corePid),
      nats: natsPid ? sample(natsPid) : null,
      bare: sample(bare.pid!),
      containers: await Promise.all(containers.map(containerUsage)),
    };
    const pct = (a: { cpu: number }, b: { cpu: number }): number => round(((b.cpu - a.cpu) / IDLE_SECONDS) * 100);
    const procs = (await Promise.all(containers.map(processes))).flat();
    const avgRss = (kind: string): number => {
      const ps = procs.filter((p) => p.kind === kind);
      return ps.length ? mb(ps.reduce((s, p) => s + p.rssBytes, 0) / ps.length) : 0;
    };
    const containerCpu = containers.map((_, i) =>
      round(((after.containers[i]!.cpuSeconds - before.containers[i]!.cpuSeconds) / IDLE_SECONDS) * 100),
    );

    const list = await measure(() => nexus.rpc('sessions.list', {}), { iterations: 50, concurrency: 1, warmup: 5 });
    const base = await measure(() => get(`http://127.0.0.1:${barePort}/`), {
      iterations: 50,
      concurrency: 1,
      warmup: 5,
    });
    const figure = compare(
      'real agent: idle, 20 sessions in 2 workspaces (sessions.list over HTTP)',
      'bare node:http GET',
      list,
      base,
      'core idle CPU < 1 %, RSS <= 150 MB',
    );
    figure.extra = {
      sessions: total,
      idleSeconds: IDLE_SECONDS,
      coreCpuPercent: pct(before.core, after.core),
      coreRssMb: mb(after.core.rss),
      natsCpuPercent: before.nats && after.nats ? pct(before.nats, after.nats) : -1,
      natsRssMb: after.nats ? mb(after.nats.rss) : -1,
      bareCpuPercent: pct(before.bare, after.bare),
      bareRssMb: mb(after.bare.rss),
      containerCpuPercent: containerCpu.join(' / '),
      containerMemoryMb: after.containers.map((c) => mb(c.memoryBytes)).join(' / '),
      perSessionContainerMb: mb(after.containers.reduce((s, c) => s + c.memoryBytes, 0) / total),
      claudeRssMb: avgRss('claude'),
      nexusMcpRssMb: avgRss('nexus-mcp'),
      relayRssMb: avgRss('relay'),
    };
    return [figure];
  } finally {
    bare.kill();
    await nexus.rpc('workspaces.delete', { workspace: names[1] }).catch(() => undefined);
    await real.stop();
  }
};
export default bench;
