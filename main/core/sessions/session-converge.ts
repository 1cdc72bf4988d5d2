import type { Session } from '../../../shared/contract/sessions';
import type { Logger } from '../log';
import type { WorkspaceInfo, WorkspaceRuntime } from '../workspaces/runtime';
import type { SessionsConfig } from './config';
import type { SessionLauncher } from './launch/session-launcher';
import { type SessionMachinery } from './session-machinery';
import { sessionPaths } from './session-paths';
import type { SessionPatch, SessionRow, SessionStore } from './session-store';

export interface ConvergeReport {
  alive: string[];
  relaunched: string[];
  exited: string[];
  /** Creates a restart interrupted before their agent started: cleaned up, now error. */
  interrupted: string[];
  /** Creates a restart interrupted after their agent started: now running. */
  adopted: string[];
}

export interface ConvergeDeps {
  runtime: Pick<WorkspaceRuntime, 'run' | 'find' | 'list'>;
  store: SessionStore;
  machinery: SessionMachinery;
  launcher: SessionLauncher;
  config: SessionsConfig;
  log: Logger;
  /** Sessions whose create is queued or running in this process (left alone). */
  inFlight: ReadonlySet<string>;
  /** Saves a change and tells everyone. */
  patch(id: string, patch: SessionPatch): Session | null;
  /** Arms the start-up watchdog for a relaunched agent (launched at `at`). */
  armStartup(id: string, at: string): void;
}

/**
 * After a restart (and when a workspace starts): a running session whose window is alive is left
 * alone; one whose window is gone is relaunched with --resume when its worktree is still there,
 * else marked exited; a create interrupted by the restart is settled (see settleInterrupted). Runs in the workspace's
 * queue, so it never races a create, and nothing alive is launched twice.
 */
export async function convergeSessions(d: ConvergeDeps, workspaceId?: string): Promise<ConvergeReport> {
  const report: ConvergeReport = { alive: [], relaunched: [], exited: [], interrupted: [], adopted: [] };
  await d.launcher
    .endOrphanRuns()
    .catch((e: unknown) => d.log.warn('ending orphaned session runs failed', { error: e }));
  const workspaces = workspaceId ? [d.runtime.find(workspaceId)] : d.runtime.list();
  for (const ws of workspaces) {
    if (!ws?.running || !ws.containerId) continue;
    d.launcher.forgetTools(ws.containerId);
    await d.runtime.run(ws.id, async () => {
      const cur = d.runtime.find(ws.id);
      if (cur?.running) await convergeWorkspace(d, cur, report);
    });
  }
  return report;
}

async function convergeWorkspace(d: ConvergeDeps, ws: WorkspaceInfo, report: ConvergeReport): Promise<void> {
  // A launch a killed core left running in the container finishes first: the windows it opens count.
  await d.machinery.waitForLaunches(ws);
  const windows = await d.machinery.windows(ws);
  for (const row of d.store.list(ws.id)) {
    if (d.inFlight.has(row.id)) continue;
    await d.launcher.endStrayRuns(row.id);
    const windowId = windows.get(row.name);
    const p = sessionPaths(d.config, row.id, row.name);
    if (row.status === 'creating') await settleInterrupted(d, ws, row, windowId, report);
    else if (row.status !== 'running') continue;
    else if (windowId) {
      if (windowId !== row.window_id) d.patch(row.id, { window_id: windowId });
      report.alive.push(row.id);
    } else if (await d.machinery.worktreeExists(ws, p)) {
      await d.launcher.ensureTools(ws);
      const run = await d.launcher.startRun(ws, row);
      const cmd = d.launcher.command(ws, row, { resume: true, mcpConfig: run.mcpConfig });
      const launchedAt = new Date().toISOString();
      const id = await d.machinery.launch(ws, row.name, p, cmd, { addWorktree: false, runFiles: run.runFiles });
      d.patch(row.id, {
        window_id: id,
        agent_state: 'starting',
        agent_message: 'Relaunched after a restart (conversation resumed)',
      });
      d.armStartup(row.id, launchedAt);
      report.relaunched.push(row.id);
    } else {
      await d.launcher.endRunOf(row.id, 'finished', 'The session exited.');
      d.patch(row.id, {
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
  d: ConvergeDeps,
  ws: WorkspaceInfo,
  row: SessionRow,
  windowId: string | undefined,
  report: ConvergeReport,
): Promise<void> {
  if (windowId) {
    d.patch(row.id, {
      status: 'running',
      reason: null,
      window_id: windowId,
      agent_message: 'Launched while Nexus was restarting; its state shows from its next hook event.',
    });
    report.adopted.push(row.id);
    return;
  }
  const p = sessionPaths(d.config, row.id, row.name);
  await d.machinery.removeWorktree(ws, p);
  await d.machinery.removeState(ws, p);
  await d.launcher.endRunOf(row.id, 'cancelled', 'Its create was interrupted by a restart.');
  d.patch(row.id, {
    status: 'error',
    reason: 'Creation was interrupted by a restart before its agent started; delete the session and create it again.',
    window_id: null,
  });
  report.interrupted.push(row.id);
}
