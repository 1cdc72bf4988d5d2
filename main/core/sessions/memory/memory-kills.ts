import type { Logger } from '../../log';
import type { WorkspaceInfo, WorkspaceRuntime } from '../../workspaces';
import type { ContainerExec } from '../container-sh';
import { readContainerMemory, type ContainerMemory } from './container-memory';
import { memoryText } from './memory-admission';
import type { SessionRow } from '../session-store';

/** What finding the agents the OOM killer took may do: the sessions service hands it exactly this. */
export interface MemoryKillsPort {
  runtime: Pick<WorkspaceRuntime, 'run' | 'find'> & ContainerExec;
  /** The workspace's `running` sessions whose create or relaunch is not in flight. */
  running(workspaceId: string): SessionRow[];
  /** The live windows of the workspace's sessions (name -> id). */
  liveWindows(ws: WorkspaceInfo): Promise<Map<string, string>>;
  /** Puts the session in error with the reason, ends its run, tells everyone. */
  killed(row: SessionRow, reason: string): void;
  log: Logger;
}

/** Docker raises one `oom` event per kill; a burst is looked at once, after the killed processes are reaped. */
const SETTLE_MS = 1_000;

/** The reason a session shows when the kernel killed its agent for memory. */
export function killedForMemoryReason(memory: ContainerMemory): string {
  const limit = memory.limitBytes === null ? '' : ` (workspace limit ${memoryText(memory.limitBytes)})`;
  return (
    `The agent was killed for memory${limit}: the workspace container's memory ran out and the kernel's ` +
    'OOM killer ended it. Delete the session and create it again where there is room (fewer sessions in ' +
    'this workspace, another workspace, or a larger docker.memoryBytes).'
  );
}

/**
 * Sessions whose agent the kernel's OOM killer took. Their window is gone (the window runs the agent
 * with `exec`), nothing raised SessionEnd, and the container's memory cgroup counted an OOM kill: such
 * a session goes to `error` with the reason, instead of staying `running` with a dead inbox. Looked at
 * on Docker's `oom` event for the container and when a message finds the inbox socket gone; in the
 * workspace's queue, so a launch or a relaunch never looks like a lost window.
 */
export class MemoryKills {
  private readonly pending = new Map<string, NodeJS.Timeout>();

  constructor(private readonly port: MemoryKillsPort) {}

  /** Docker said the container's OOM killer ran: look once the burst settles. */
  outOfMemory(workspaceId: string): void {
    clearTimeout(this.pending.get(workspaceId));
    const t = setTimeout(() => {
      this.pending.delete(workspaceId);
      this.check(workspaceId).catch((e: unknown) =>
        this.port.log.warn('looking for agents killed for memory failed', { workspaceId, error: e }),
      );
    }, SETTLE_MS);
    t.unref();
    this.pending.set(workspaceId, t);
  }

  /** Marks every running session of the workspace whose agent was killed for memory; returns their ids. */
  check(workspaceId: string): Promise<string[]> {
    return this.port.runtime.run(workspaceId, async () => {
      const ws = this.port.runtime.find(workspaceId);
      if (!ws?.running) return [];
      const memory = await readContainerMemory(this.port.runtime, ws);
      if (!memory || memory.oomKills === 0) return [];
      const windows = await this.port.liveWindows(ws);
      const lost = this.port
        .running(workspaceId)
        // An agent that said SessionEnd ended by itself; one whose window lives was not killed.
        .filter((r) => r.agent_state !== 'exited' && !windows.has(r.name));
      const reason = killedForMemoryReason(memory);
      for (const row of lost) {
        this.port.log.warn('agent killed for memory', {
          sessionId: row.id,
          workspaceId,
          oomKills: memory.oomKills,
          limitBytes: memory.limitBytes,
        });
        this.port.killed(row, reason);
      }
      return lost.map((r) => r.id);
    });
  }

  dispose(): void {
    for (const t of this.pending.values()) clearTimeout(t);
    this.pending.clear();
  }
}
