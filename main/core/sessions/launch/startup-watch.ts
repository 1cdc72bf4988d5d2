import { startupFailureReason } from '../../agents';
import type { Logger } from '../../log';
import { capturePane } from '../../terminal';
import type { WorkspaceRuntime } from '../../workspaces';
import type { SessionRow, SessionStore } from '../session-store';
import type { SessionUpdates } from '../session-updates';

/**
 * One timer per launched agent: when it fires and no hook has arrived since the launch (the first
 * one an agent sends is SessionStart), `fire` puts the session in error with what its pane shows
 * (see agents/startup-watchdog.ts). A hook disarms it; no timeout configured = nothing is armed.
 */
export class StartupWatch {
  private readonly timers = new Map<string, NodeJS.Timeout>();

  constructor(
    private readonly timeoutMs: number | undefined,
    private readonly fire: (sessionId: string, armedAt: string, timeoutMs: number) => Promise<void>,
    private readonly log: Logger,
  ) {}

  /** `armedAt`: taken before the launch, so a hook that beats the arm still counts. */
  arm(sessionId: string, armedAt: string): void {
    const ms = this.timeoutMs;
    if (!ms) return;
    this.disarm(sessionId);
    const t = setTimeout(() => {
      this.timers.delete(sessionId);
      this.fire(sessionId, armedAt, ms).catch((e: unknown) =>
        this.log.warn('start-up watchdog failed', { sessionId, error: e }),
      );
    }, ms);
    t.unref();
    this.timers.set(sessionId, t);
  }

  disarm(sessionId: string): void {
    clearTimeout(this.timers.get(sessionId));
    this.timers.delete(sessionId);
  }
}

export interface StartupTimeoutDeps {
  store: Pick<SessionStore, 'get'>;
  runtime: Pick<WorkspaceRuntime, 'find' | 'exec'>;
  updates: Pick<SessionUpdates, 'patch'>;
  log: Logger;
}

/** The watchdog fired: unless a hook came since the launch, the pane says why the agent is stuck. */
export async function startupTimedOut(
  d: StartupTimeoutDeps,
  id: string,
  launchedAt: string,
  timeoutMs: number,
): Promise<void> {
  const started = (r: SessionRow | null): boolean =>
    !r || r.status !== 'running' || (r.agent_state_at !== null && r.agent_state_at >= launchedAt);
  const row = d.store.get(id);
  if (started(row) || !row) return;
  const ws = d.runtime.find(row.workspace_id);
  if (!ws?.running || !row.window_id) return;
  const pane = await capturePane(d.runtime, ws, row.window_id).catch(() => '');
  if (started(d.store.get(id))) return;
  const reason = startupFailureReason(pane, timeoutMs);
  d.log.warn('agent did not start', { sessionId: id });
  d.updates.patch(id, { status: 'error', reason });
}
