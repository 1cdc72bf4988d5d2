import type { ContainerExec, ExecTarget } from '../container-sh';

/** What a workspace container's memory cgroup says: the OOM killer's kills since the container started, its limit. */
export interface ContainerMemory {
  oomKills: number;
  /** Null when the cgroup sets none (`max`, or v1's huge "unlimited" figure). */
  limitBytes: number | null;
}

/**
 * Read from inside the container (Docker gives it its own cgroup view): cgroup v1's `memory.oom_control`
 * and `memory.limit_in_bytes` (this machine's Docker 20.10, cgroupfs driver), else v2's `memory.events`
 * and `memory.max`. The counter is the container's own: it starts at 0 with each container start.
 */
const PROBE = `v1=/sys/fs/cgroup/memory
if [ -r "$v1/memory.oom_control" ]; then
  grep '^oom_kill ' "$v1/memory.oom_control"; echo "limit $(cat "$v1/memory.limit_in_bytes")"
elif [ -r /sys/fs/cgroup/memory.events ]; then
  grep '^oom_kill ' /sys/fs/cgroup/memory.events; echo "limit $(cat /sys/fs/cgroup/memory.max)"
fi`;

/** v1 reports "no limit" as a page-rounded 2^63 - 1. */
const UNLIMITED = 2 ** 62;

/** The probe's output; null when it found no memory cgroup to read. */
export function parseContainerMemory(out: string): ContainerMemory | null {
  const kills = /^oom_kill (\d+)$/m.exec(out);
  if (!kills) return null;
  const limit = /^limit (\d+)$/m.exec(out);
  const bytes = limit ? Number(limit[1]) : NaN;
  return { oomKills: Number(kills[1]), limitBytes: Number.isFinite(bytes) && bytes < UNLIMITED ? bytes : null };
}

/** One exec; null when the container has no readable memory cgroup or the exec fails. */
export async function readContainerMemory(runtime: ContainerExec, ws: ExecTarget): Promise<ContainerMemory | null> {
  const r = await runtime.exec(ws, ['sh', '-c', PROBE]).catch(() => null);
  return r && r.exitCode === 0 ? parseContainerMemory(r.stdout) : null;
}
