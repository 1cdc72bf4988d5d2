import type { AgentDrivers } from '../../agents';
import type { WorkspaceRuntime } from '../../workspaces';
import type { SessionsConfig } from '../config';
import { waitForLaunches } from '../launch/launch-exec';
import type { SessionLauncher } from '../launch/session-launcher';
import type { StartupWatch } from '../launch/startup-watch';
import { listWindows } from '../launch/tmux';
import { sessionPaths } from '../session-paths';
import type { SessionRow, SessionStore } from '../session-store';
import type { SessionUpdates } from '../session-updates';
import { removeWorkArea, worktreeExists } from '../worktrees';
import type { ConvergeSessions } from './session-converge';

export interface ConvergePortDeps {
  store: Pick<SessionStore, 'list'>;
  runtime: Pick<WorkspaceRuntime, 'exec'>;
  config: SessionsConfig;
  /** Whether the session's create is queued or running in this process: converge leaves it to the create. */
  inFlight(id: string): boolean;
  updates: Pick<SessionUpdates, 'patch'>;
  launcher: Pick<
    SessionLauncher,
    'forgetTools' | 'relaunch' | 'hooksLive' | 'endOrphanRuns' | 'endStrayRuns' | 'endRunOf'
  >;
  startup: Pick<StartupWatch, 'arm'>;
  drivers: Pick<AgentDrivers, 'get'>;
}

/** What converge may do (see ConvergeSessions), built from the sessions module's parts: nothing beyond it. */
export function convergePort(d: ConvergePortDeps): ConvergeSessions {
  const { runtime, config } = d;
  const paths = (row: SessionRow) => sessionPaths(config, row.id, row.name);
  return {
    settled: (workspaceId) => d.store.list(workspaceId).filter((r) => !d.inFlight(r.id)),
    patch: (id, p) => void d.updates.patch(id, p),
    forgetContainer: (containerId) => d.launcher.forgetTools(containerId),
    liveWindows: async (ws) => {
      await waitForLaunches(runtime, config, ws);
      return listWindows(runtime, config, ws);
    },
    worktreeExists: (ws, row) => worktreeExists(runtime, ws, paths(row)),
    relaunch: async (ws, row) => {
      const { windowId, launchedAt } = await d.launcher.relaunch(ws, row);
      // A kind whose resume raises no hook until its next turn is at its prompt: idle, no watchdog (its driver says).
      const after = d.drivers
        .get(row.agent)
        .afterRelaunch({ id: row.id, name: row.name, conversationId: row.agent_thread_id });
      if (after.state === 'idle') {
        d.updates.patch(row.id, {
          window_id: windowId,
          agent_state: 'idle',
          agent_state_at: launchedAt,
          agent_message: after.message,
        });
        return;
      }
      d.updates.patch(row.id, {
        window_id: windowId,
        agent_state: 'starting',
        agent_message: 'Relaunched after a restart (conversation resumed)',
      });
      if (d.launcher.hooksLive(ws)) d.startup.arm(row.id, launchedAt);
    },
    removeWorkArea: (ws, row) => removeWorkArea(runtime, config, ws, paths(row)),
    runs: {
      endOrphans: () => d.launcher.endOrphanRuns(),
      endStray: (id) => d.launcher.endStrayRuns(id),
      end: (id, status, summary) => d.launcher.endRunOf(id, status, summary),
    },
  };
}
