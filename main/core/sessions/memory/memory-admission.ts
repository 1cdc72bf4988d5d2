import { NexusError } from '../../../../shared/errors';
import type { SessionStatus } from '../../../../shared/contract/sessions';

/** A workspace container's memory as admission sees it: its cap and what one session is taken to need. */
export interface SessionMemory {
  /** `docker.memoryBytes`: the container's cgroup limit. */
  limitBytes: number;
  /** `quota.sessionMemoryBytes`: one session's agent CLI, nexus-mcp and the tools it runs. */
  perSessionBytes: number;
}

const MIB = 1024 ** 2;
const GIB = 1024 ** 3;

/** `2 GiB`, `256 MiB`, `1.5 GiB`: the way the config's own figures read. */
export function memoryText(bytes: number): string {
  if (bytes >= GIB) return `${Number((bytes / GIB).toFixed(2))} GiB`;
  return `${Math.round(bytes / MIB)} MiB`;
}

/** How many sessions one container holds at the per-session figure. */
export const sessionsMemoryHolds = (m: SessionMemory): number => Math.floor(m.limitBytes / m.perSessionBytes);

/** The sessions cap a workspace has: the configured quota, or fewer when its memory holds fewer. */
export const effectiveSessionCap = (quota: number, m: SessionMemory): number => Math.min(quota, sessionsMemoryHolds(m));

/** Statuses whose agent holds memory in the container: a create on its way, or a running agent. */
const HOLDS_MEMORY: readonly SessionStatus[] = ['creating', 'running'];
export const holdsMemory = (status: SessionStatus): boolean => HOLDS_MEMORY.includes(status);

/**
 * Refuses a create when the workspace's container cannot hold one more session: `live` sessions
 * (creating or running) plus the new one, each at the per-session figure, over the container's limit.
 * The message names the numbers and what to do instead.
 */
export function checkSessionMemory(workspace: string, live: number, m: SessionMemory): void {
  const holds = sessionsMemoryHolds(m);
  if (live + 1 <= holds) return;
  throw new NexusError(
    'conflict',
    `Workspace ${workspace} has no memory for another session: its container is limited to ` +
      `${memoryText(m.limitBytes)} (docker.memoryBytes) and runs ${live} session(s) at about ` +
      `${memoryText(m.perSessionBytes)} each (quota.sessionMemoryBytes), so it holds ${holds}. ` +
      'Create the session in another workspace, delete one of its sessions, or raise docker.memoryBytes ' +
      '(workspaces created after the change get the new limit).',
  );
}

/** The figures from core's config: every workspace container gets `docker.memoryBytes`. */
export const sessionMemoryOf = (c: {
  docker: { memoryBytes: number };
  quota: { sessionMemoryBytes: number };
}): SessionMemory => ({ limitBytes: c.docker.memoryBytes, perSessionBytes: c.quota.sessionMemoryBytes });
