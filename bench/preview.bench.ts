import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { connect } from 'node:net';
import { performance } from 'node:perf_hooks';
import type { Duplex } from 'node:stream';
import { Worker } from 'node:worker_threads';
import { ensureTestWorkerImage } from '../test/helpers/docker';
import { previewRig } from '../test/helpers/preview-rig';
import { errorMessage } from '../shared/errors';
import { compare, percentiles, type Benchmark, type Figure, type Measurement } from './lib';
import { remotePreview } from './preview-remote';
import { splicedSoFar } from '../main/core/previews/splice-body';

interface Target {
  host: string;
  port: number;
  hostHeader: string;
}
type Side = { samples: number[]; elapsed: number };

/** One mode's alternating rounds, run by bench/preview-client.mjs in a worker thread. */
function pair(
  mode: 'ttfb' | 'big' | 'fresh' | 'ws',
  base: Target,
  subject: Target,
  opts: { iterations: number; rounds: number; warmup: number },
): Promise<{ base: Measurement; subject: Measurement }> {
  const worker = new Worker(new URL('./preview-client.mjs', import.meta.url), {
    workerData: { mode, base, subject, ...opts },
  });
  const of = (s: Side): Measurement => ({
    ...percentiles(s.samples),
    perSecond: (s.samples.length / s.elapsed) * 1000,
  });
  return new Promise((resolve, reject) => {
    worker.once('message', (m: { base: Side; subject: Side }) => resolve({ base: of(m.base), subject: of(m.subject) }));
    worker.once('error', reject);
  });
}

/** Time to the first byte of an answer on a connection `open` makes (the connection's cost included). */
async function firstByte(open: () => Promise<Duplex>): Promise<number> {
  const t = performance.now();
  const s = await open();
  await new Promise<void>((resolve, reject) => {
    s.once('data', () => resolve());
    s.once('error', reject);
    s.write('GET / HTTP/1.1\r\nhost: preview\r\nconnection: close\r\n\r\n');
  });
  s.destroy();
  return performance.now() - t;
}

/**
 * The preview proxy (issue 42 item 3) vs the same port reached directly, in the same run: a session's preview
 * app in a worker container on the `nexus` bridge, asked at its bridge address (direct) and through its preview
 * origin on a loopback listener that hands it to the previews module as the host does. The client runs in a
 * worker thread, the proxy in the main thread (as core and a browser are apart). Time to first byte of the page,
 * a 10 MB asset's throughput and a WebSocket round trip (hot reload), one request at a time; and the first
 * request on a new connection to an app bound to the container's 127.0.0.1 (a docker exec per connection) vs a
 * new direct connection.
 */
const bench: Benchmark = async () => {
  const rig = await previewRig({ chromium: null });
  const load = loadavg()[0] ?? 0;
  try {
    const session = await rig.addSession('web');
    await rig.startApp('/workspace/.nexus-worktrees/web', 3000);
    await rig.startApp('/workspace/.nexus-worktrees/web', 3001, '127.0.0.1');
    const info = await rig.docker.getContainer(rig.containerId).inspect();
    const ip = Object.values(info.NetworkSettings.Networks ?? {})[0]?.IPAddress ?? '';
    const listed = await rig.previews.service.list(session.id);
    if (listed.previews.length !== 2) throw new Error(`expected two previews, got ${JSON.stringify(listed)}`);
    const proxied = (port: number): Target => ({
      host: '127.0.0.1',
      port: rig.frontPort,
      hostHeader: `${port}-web.${rig.workspace.name}.localhost:${rig.frontPort}`,
    });
    const direct: Target = { host: ip, port: 3000, hostHeader: `${ip}:3000` };

    // A new connection's cost by itself: a docker exec of the pinned Node (the 127.0.0.1-only and remote path) vs TCP.
    const docker = rig.docker;
    const exec = { docker, containerId: rig.containerId, local: true, loopbackOnly: true, ipv6Only: false };
    const cold = { exec: [] as number[], tcp: [] as number[] };
    for (let i = 0; i < 20; i++) {
      cold.exec.push(await firstByte(() => rig.previews.service.dialer.dial({ ...exec, port: 3001 })));
      cold.tcp.push(
        await firstByte(
          () =>
            new Promise((resolve, reject) => {
              const c = connect(3000, ip);
              c.once('connect', () => resolve(c));
              c.once('error', reject);
            }),
        ),
      );
    }
    const coldExec = percentiles(cold.exec);
    const coldTcp = percentiles(cold.tcp);

    console.log('  measuring the local preview');
    const ttfb = await pair('ttfb', direct, proxied(3000), { iterations: 4000, rounds: 20, warmup: 200 });
    const elu = performance.eventLoopUtilization();
    const splicedBefore = splicedSoFar().bodies;
    const big = await pair('big', direct, proxied(3000), { iterations: 80, rounds: 8, warmup: 4 });
    // How many proxied assets the kernel moved (native/splice) rather than the proxy's JS.
    const splicedAssets = splicedSoFar().bodies - splicedBefore;
    // Only the proxy runs on this thread while the client's worker asks: its busy ms per proxied 10 MB.
    const proxyBusyMs = performance.eventLoopUtilization(elu).active / (big.subject.n + 4);
    const ws = await pair('ws', direct, proxied(3000), { iterations: 4000, rounds: 20, warmup: 200 });
    const fresh = await pair('fresh', direct, proxied(3001), { iterations: 80, rounds: 8, warmup: 4 });

    const plus = (s: number, d: number) => `+${(s - d).toFixed(3)} ms`;
    const loads = `${load.toFixed(1)}→${(loadavg()[0] ?? 0).toFixed(1)}`;
    const figures: Figure[] = [
      {
        ...compare('preview TTFB', 'the port directly', ttfb.subject, ttfb.base, 'p50 ≤ +1 ms'),
        extra: { p50Delta: plus(ttfb.subject.p50Ms, ttfb.base.p50Ms), loadAverage: loads },
      },
      {
        ...compare('preview 10 MB asset', 'the port directly', big.subject, big.base, '≥ 0.8× direct throughput'),
        extra: {
          proxiedMBps: (big.subject.perSecond * 10).toFixed(0),
          directMBps: (big.base.perSecond * 10).toFixed(0),
          proxyBusyMsPer10MB: proxyBusyMs.toFixed(1),
          spliced: `${splicedAssets} of ${big.subject.n + 4}`,
        },
      },
      {
        ...compare('preview WebSocket round trip', 'the port directly', ws.subject, ws.base, 'p95 ≤ +2 ms'),
        extra: { p95Delta: plus(ws.subject.p95Ms, ws.base.p95Ms), p95Ms: ws.subject.p95Ms.toFixed(3) },
      },
      {
        ...compare(
          'preview new client connection, app on 127.0.0.1 (pooled docker exec pipes)',
          'a new direct connection',
          fresh.subject,
          fresh.base,
        ),
        extra: {
          p50Delta: plus(fresh.subject.p50Ms, fresh.base.p50Ms),
          coldExecConnectionP50Ms: coldExec.p50Ms.toFixed(1),
          coldTcpConnectionP50Ms: coldTcp.p50Ms.toFixed(1),
        },
      },
    ];
    if (process.getuid?.() === 0)
      figures.push(
        ...(await onRemoteEngine(proxied(3000), {
          exec: { ...coldExec, perSecond: 0 },
          tcp: { ...coldTcp, perSecond: 0 },
        }).catch((e: unknown) => {
          console.log(`  the remote engine's preview was not measured: ${errorMessage(e)}`);
          return [];
        })),
      );
    else console.log('  (not root: no second engine, the remote preview is not measured)');
    return figures;
  } finally {
    await rig.dispose();
  }
};

/** utime + stime of a process and its children that exited, in ms (Linux /proc; 0 when it is not there). */
function cpuMsOf(pid: number | null): number {
  if (!pid) return 0;
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
    const ticks = [11, 12].reduce((sum, i) => sum + Number(fields[i] ?? 0), 0);
    return (ticks * 1000) / 100;
  } catch {
    return 0;
  }
}

/** The `ssh` under the OpenSSH child's wrapper shell. */
function sshUnder(wrapper: number | null): number | null {
  if (!wrapper) return null;
  try {
    const children = readFileSync(`/proc/${wrapper}/task/${wrapper}/children`, 'utf8').trim().split(/\s+/);
    return children.map(Number).find((c) => readFileSync(`/proc/${c}/comm`, 'utf8').trim() === 'ssh') ?? null;
  } catch {
    return null;
  }
}

/**
 * The preview of an app on a remote engine (over its SSH link: the proxy's connections are tunnels to the container's
 * address on that host) vs the local preview of the same app, same run, for each carrier of the tunnel: the engine's
 * resident OpenSSH child (`openssh`, what core uses when it has `ssh`) and ssh2's `direct-tcpip` channel on core's
 * event loop (`ssh2`, the fallback and the path before it); the carriers' rounds alternate. And a cold connection of
 * each remote path against its local counterpart, and core's thread's busy time per remote 10 MB asset by carrier.
 */
async function onRemoteEngine(local: Target, coldLocal: { exec: Measurement; tcp: Measurement }): Promise<Figure[]> {
  const remote = await remotePreview(await ensureTestWorkerImage(), 3000);
  console.log('  the remote engine answers; measuring its preview');
  try {
    const carriers = ['ssh2', 'openssh'] as const;
    const figures: Figure[] = [];
    const cold = { ssh2: [] as number[], openssh: [] as number[], exec: [] as number[] };
    for (let i = 0; i < 10; i++) {
      for (const c of carriers) cold[c].push(await firstByte(() => remote.dial(c)));
      cold.exec.push(await firstByte(() => remote.dialExec()));
    }
    const sshPid = sshUnder(remote.openSshPid());
    const runs: Record<string, Awaited<ReturnType<typeof pair>>> = {};
    const loads: Record<string, string> = {};
    const opened: Record<string, string> = {};
    const busy: Record<string, { coreMs: number; sshMs: number }> = {};
    const load = () => (loadavg()[0] ?? 0).toFixed(1);
    // Each carrier's turn twice, alternating, so neither gets only the quieter half of the run.
    for (const round of [0, 1])
      for (const c of round === 0 ? carriers : ([...carriers].reverse() as (typeof carriers)[number][])) {
        const at = load();
        const before = remote.opened(c);
        const t = remote.targets[c];
        const ttfb = await pair('ttfb', local, t, { iterations: 1000, rounds: 10, warmup: 50 });
        const big = await pair('big', local, t, { iterations: 20, rounds: 4, warmup: 2 });
        const ws = await pair('ws', local, t, { iterations: 1000, rounds: 10, warmup: 50 });
        // Only the remote asset, both sides: core's thread (the proxy, and ssh2's decryption when it carries) per 10 MB.
        const elu = performance.eventLoopUtilization();
        const sshCpu = cpuMsOf(sshPid);
        const only = await pair('big', t, t, { iterations: 10, rounds: 2, warmup: 1 });
        const n = only.base.n + only.subject.n + 2;
        const b = busy[c] ?? { coreMs: 0, sshMs: 0 };
        busy[c] = {
          coreMs: b.coreMs + performance.eventLoopUtilization(elu).active / n / 2,
          sshMs: b.sshMs + (c === 'openssh' ? (cpuMsOf(sshPid) - sshCpu) / n / 2 : 0),
        };
        const after = remote.opened(c);
        const merged = (k: 'ttfb' | 'big' | 'ws') => {
          const r = runs[`${c} ${k}`];
          const x = { ttfb, big, ws }[k];
          if (!r) return x;
          // The two turns together: samples are not kept, so each figure is the mean of the two turns'.
          const mean = (p: Measurement, q: Measurement): Measurement => ({
            n: p.n + q.n,
            p50Ms: (p.p50Ms + q.p50Ms) / 2,
            p95Ms: (p.p95Ms + q.p95Ms) / 2,
            p99Ms: (p.p99Ms + q.p99Ms) / 2,
            perSecond: (p.perSecond + q.perSecond) / 2,
          });
          return { base: mean(r.base, x.base), subject: mean(r.subject, x.subject) };
        };
        for (const k of ['ttfb', 'big', 'ws'] as const) runs[`${c} ${k}`] = merged(k);
        loads[c] = `${loads[c] ? `${loads[c]}, ` : ''}${at}→${load()}`;
        opened[c] =
          `${opened[c] ? `${opened[c]}; ` : ''}${after.tunnel - before.tunnel} tunnels (openssh ${after.openssh - before.openssh}, ssh2 ${after.ssh2 - before.ssh2}), ${after.exec - before.exec} execs`;
      }
    const vs = 'the local preview (bridge)';
    for (const c of carriers) {
      const name = (what: string) => `remote-engine preview (${c}) ${what}`;
      const ttfb = runs[`${c} ttfb`]!;
      const big = runs[`${c} big`]!;
      const ws = runs[`${c} ws`]!;
      figures.push(
        {
          ...compare(name('TTFB (pooled tunnel)'), vs, ttfb.subject, ttfb.base, '≤ 1.2× local'),
          extra: { loadAverage: loads[c] ?? '', connections: opened[c] ?? '' },
        },
        {
          ...compare(name('10 MB asset'), vs, big.subject, big.base, '≤ 1.2× local (throughput ≥ 0.83×)'),
          extra: {
            remoteMBps: (big.subject.perSecond * 10).toFixed(0),
            localMBps: (big.base.perSecond * 10).toFixed(0),
            coreBusyMsPer10MB: (busy[c]?.coreMs ?? 0).toFixed(1),
            sshChildCpuMsPer10MB: (busy[c]?.sshMs ?? 0).toFixed(1),
          },
        },
        { ...compare(name('WebSocket round trip'), vs, ws.subject, ws.base, '≤ 1.2× local') },
        {
          ...compare(
            name('cold connection (one tunnel opened)'),
            'a cold TCP connection on the local engine',
            { ...percentiles(cold[c]), perSecond: 0 },
            coldLocal.tcp,
          ),
          extra: { sshConnections: remote.sshConnections() },
        },
      );
    }
    figures.push({
      ...compare(
        'remote-engine preview cold connection, app on 127.0.0.1 (one docker exec over the link)',
        'a cold exec connection on the local engine',
        { ...percentiles(cold.exec), perSecond: 0 },
        coldLocal.exec,
      ),
    });
    return figures;
  } finally {
    await remote.dispose();
  }
}
export default bench;
