import type { Logger } from '../../log';
import type { WorkspaceInfo, WorkspaceRuntime } from '../../workspaces';
import type { SessionPatch, SessionRow } from '../session-store';

export interface ConvergeReport {
  alive: string[];
  relaunched: string[];
  exited: string[];
  /** Creates a restart interrupted before their agent started: cleaned up, now error. */
  interrupted: string[];
  /** Creates a restart interrupted after their agent started: now running. */
  adopted: string[];
}

/** What converge may do to the sessions of a workspace: the sessions service hands it exactly this. */
export interface ConvergeSessions {
  /** The workspace's sessions, less those whose create is queued or running in this process. */
  settled(workspaceId: string): SessionRow[];
  /** Saves a change and tells everyone. */
  patch(id: string, patch: SessionPatch): void;
  /** A restarted container lost its /tmp (tools, inbox addresses): install again before any relaunch. */
  forgetContainer(containerId: string): void;
  /** The live windows (name -> id), once no launch (e.g. one a killed core left running) holds the lock. */
  liveWindows(ws: WorkspaceInfo): Promise<Map<string, string>>;
  worktreeExists(ws: WorkspaceInfo, row: SessionRow): Promise<boolean>;
  /** Launches the agent again with --resume in the kept worktree (a fresh run, the watchdog armed). */
  relaunch(ws: WorkspaceInfo, row: SessionRow): Promise<void>;
  /** Removes what a create made in the container (worktree, state dir); the branch stays. */
  removeWorkArea(ws: WorkspaceInfo, row: SessionRow): Promise<void>;
  runs: {
    /** Ends runs whose session is gone (a deleted workspace takes its sessions with it). */
    endOrphans(): Promise<number>;
    /** Ends the session's runs other than its current one. */
    endStray(sessionId: string): Promise<void>;
    /** Ends the session's current run. */
    end(sessionId: string, status: 'finished' | 'cancelled', summary: string): Promise<void>;
  };
}

export interface ConvergeDeps {
  runtime: Pick<WorkspaceRuntime, 'run' | 'find' | 'list'>;
  sessions: ConvergeSessions;
  log: Logger;
}

/**
 * After a restart (and when a workspace starts): a running session whose window is alive is left
 * alone; one whose window is gone is relaunched with --resume when its worktree is still there,
 * else marked exited; a create interrupted by the restart is settled (see settleInterrupted). Runs in the workspace's
 * queue, so it never races a create, and nothing alive is launched twice.
 */
export async function convergeSessions(d: ConvergeDeps, workspaceId?: string): Promise<ConvergeReport> {
  const report: ConvergeReport = { alive: [], relaunched: [], exited: [], interrupted: [], adopted: [] };
  await d.sessions.runs
    .endOrphans()
    .catch((e: unknown) => d.log.warn('ending orphaned session runs failed', { error: e }));
  const workspaces = workspaceId ? [d.runtime.find(workspaceId)] : d.runtime.list();
  for (const ws of workspaces) {
    if (!ws?.running || !ws.containerId) continue;
    d.sessions.forgetContainer(ws.containerId);
    // One workspace that cannot be asked (its engine busy or gone) leaves its sessions as they are, not the others.
    await d.runtime
      .run(ws.id, async () => {
        const cur = d.runtime.find(ws.id);
        if (cur?.running) await convergeWorkspace(d.sessions, cur, report);
      })
      .catch((e: unknown) =>
        d.log.warn('session converge left a workspace as it was', { workspaceId: ws.id, error: e }),
      );
  }
  return report;
}

async function convergeWorkspace(s: ConvergeSessions, ws: WorkspaceInfo, report: ConvergeReport): Promise<void> {
  const windows = await s.liveWindows(ws);
  for (const row of s.settled(ws.id)) {
    await s.runs.endStray(row.id);
    const windowId = windows.get(row.name);
    if (row.status === 'creating') await settleInterrupted(s, ws, row, windowId, report);
    else if (row.status !== 'running') continue;
    else if (windowId) {
      if (windowId !== row.window_id) s.patch(row.id, { window_id: windowId });
      report.alive.push(row.id);
    } else if (await s.worktreeExists(ws, row)) {
      await s.relaunch(ws, row);
      report.relaunched.push(row.id);
    } else {
      await s.runs.end(row.id, 'finished', 'The session exited.');
      s.patch(row.id, {
        status: 'exited',
        reason: 'Its window and worktree are gone.',
        agent_state: 'exited',
        window_id: null,
      });
      report.exited.push(row.id);
    }
  }
}

/**
 * A create a restart interrupted. Its agent was launched (the window is there): the session runs,
 * and its state shows from the agent's next hook event (the ones sent while core was down are lost).
 * Not launched: what it made (worktree, state dir, run and its NATS user) is removed, and the
 * session is an error with the reason; the branch stays, as a delete leaves it.
 */
async function settleInterrupted(
  s: ConvergeSessions,
  ws: WorkspaceInfo,
  row: SessionRow,
  windowId: string | undefined,
  report: ConvergeReport,
): Promise<void> {
  if (windowId) {
    s.patch(row.id, {
      status: 'running',
      reason: null,
      window_id: windowId,
      agent_message: 'Launched while Nexus was restarting; its state shows from its next hook event.',
    });
    report.adopted.push(row.id);
    return;
  }
  await s.removeWorkArea(ws, row);
  await s.runs.end(row.id, 'cancelled', 'Its create was interrupted by a restart.');
  s.patch(row.id, {
    status: 'error',
    reason: 'Creation was interrupted by a restart before its agent started; delete the session and create it again.',
    window_id: null,
  });
  report.interrupted.push(row.id);
}
