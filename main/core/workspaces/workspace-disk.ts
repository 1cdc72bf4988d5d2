import { NexusError } from '../../../shared/errors';
import type { WorkspaceRuntime } from './runtime';

export interface DiskUse {
  workspaceId: string;
  bytes: number;
  worktrees: { name: string; bytes: number }[];
  at: string;
}

/** Where the workspace volume's clone and the session worktrees are in the container (sessions config). */
export interface DiskDirs {
  volumeDir: string;
  worktreesDir: string;
}

/** A running workspace's disk use: its volume's size and each session worktree's, from `du` in the container. */
export async function workspaceDisk(
  runtime: Pick<WorkspaceRuntime, 'exec' | 'info'>,
  dirs: DiskDirs,
  ref: string,
): Promise<DiskUse> {
  const ws = runtime.info(ref);
  if (!ws.running || !ws.containerId)
    throw new NexusError('conflict', `Workspace ${ws.name} is not running; start it to measure its disk use.`);
  const r = await runtime.exec(
    ws,
    [
      'sh',
      '-c',
      'du -sk "$1" 2>/dev/null | tail -n 1; ' +
        '[ -d "$2" ] && cd "$2" && for d in */; do [ -d "$d" ] && du -sk "$d" 2>/dev/null; done; exit 0',
      'sh',
      dirs.volumeDir,
      dirs.worktreesDir,
    ],
    { timeoutMs: 120_000 },
  );
  const lines = r.stdout.trim().split('\n').filter(Boolean);
  const kb = (l: string | undefined): number => Number(/^(\d+)/.exec(l ?? '')?.[1] ?? 0) * 1024;
  return {
    workspaceId: ws.id,
    bytes: kb(lines[0]),
    worktrees: lines.slice(1).map((l) => ({ name: l.replace(/^\d+\s+/, '').replace(/\/$/, ''), bytes: kb(l) })),
    at: new Date().toISOString(),
  };
}
