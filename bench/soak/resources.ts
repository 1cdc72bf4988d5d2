import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type Docker from 'dockerode';
import { mb, round } from '../agent-probe';

const TICK = 100; // USER_HZ on Linux

/** One minute's figures: core's process, its nats-server, each workspace container, the WAL. */
export interface ResourceSample {
  /** Minutes since the soak's work began. */
  minute: number;
  /** Core's process (a core SIGKILLed and started again is another). */
  corePid: number;
  coreRssMb: number;
  /** Core's CPU % over the last interval (of one core). */
  coreCpuPercent: number;
  coreFds: number;
  natsRssMb: number;
  natsCpuPercent: number;
  /** Each workspace container, in the order of the result's `placement`. */
  containerMemoryMb: number[];
  walMb: number;
}

function proc(pid: number): { rss: number; cpu: number; fds: number } | null {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return {
      rss: Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? 0) * 1024,
      cpu: (Number(f[11]) + Number(f[12])) / TICK,
      fds: readdirSync(`/proc/${pid}/fd`).length,
    };
  } catch {
    return null;
  }
}

/** The nats-server core manages, from the pid file it keeps in the data dir. */
export function natsPid(dataDir: string): number | null {
  try {
    const pid = Number(readFileSync(join(dataDir, 'nats', 'nats.pid'), 'utf8').trim());
    return pid > 0 && proc(pid) ? pid : null;
  } catch {
    return null;
  }
}

/** A container's memory as `docker stats` counts it (usage less inactive file cache), on its own engine. */
async function memoryOf(docker: Docker, id: string): Promise<number> {
  const m = ((await docker.getContainer(id).stats({ stream: false })) as { memory_stats: MemoryStats }).memory_stats;
  return (m.usage ?? 0) - (m.stats?.inactive_file ?? m.stats?.total_inactive_file ?? 0);
}
interface MemoryStats {
  usage?: number;
  stats?: { inactive_file?: number; total_inactive_file?: number };
}

export function sampler(
  dataDir: string,
  corePid: () => number | null,
  containers: () => { docker: Docker; id: string }[],
  t0: number,
) {
  let last: { t: number; core: Map<number, number>; nats: Map<number, number> } = {
    t: Date.now(),
    core: new Map(),
    nats: new Map(),
  };
  return async (): Promise<ResourceSample> => {
    const now = Date.now();
    const cpid = corePid();
    const npid = natsPid(dataDir);
    const c = cpid ? proc(cpid) : null;
    const n = npid ? proc(npid) : null;
    const secs = Math.max(1, (now - last.t) / 1000);
    // A restarted process starts from zero: its CPU counts from its own start.
    const pct = (pid: number | null, cpu: number | undefined, was: Map<number, number>): number =>
      pid && cpu !== undefined ? round(((cpu - (was.get(pid) ?? 0)) / secs) * 100) : -1;
    const sample: ResourceSample = {
      minute: round((now - t0) / 60_000, 1),
      corePid: cpid ?? -1,
      coreRssMb: c ? mb(c.rss) : -1,
      coreCpuPercent: pct(cpid, c?.cpu, last.core),
      coreFds: c?.fds ?? -1,
      natsRssMb: n ? mb(n.rss) : -1,
      natsCpuPercent: pct(npid, n?.cpu, last.nats),
      containerMemoryMb: await Promise.all(
        containers().map((c) =>
          memoryOf(c.docker, c.id)
            .then(mb)
            .catch(() => -1),
        ),
      ),
      walMb: (() => {
        try {
          return mb(statSync(join(dataDir, 'nexus.db-wal')).size);
        } catch {
          return 0;
        }
      })(),
    };
    last = {
      t: now,
      core: new Map(cpid && c ? [[cpid, c.cpu]] : []),
      nats: new Map(npid && n ? [[npid, n.cpu]] : []),
    };
    return sample;
  };
}
