import type { Session } from '../../../../shared/contract/sessions';
import type { AgentDrivers } from '../../agents';
import type { SessionLauncher } from '../launch/session-launcher';
import type { StartupWatch } from '../launch/startup-watch';
import type { SessionSignals } from '../session-signals';
import type { SessionStore } from '../session-store';
import type { SessionUpdates } from '../session-updates';
import { agentStateFromHook, keepNamedTool, type HookMessage } from './hook-events';

export interface SessionHooksDeps {
  store: Pick<SessionStore, 'get' | 'list' | 'update'>;
  updates: Pick<SessionUpdates, 'patch'>;
  signals: Pick<SessionSignals, 'emit'>;
  startup: Pick<StartupWatch, 'disarm'>;
  launcher: Pick<SessionLauncher, 'summarize'>;
  /** A kind whose CLI chooses its conversation id reports it in a hook (its driver says which). */
  drivers: Pick<AgentDrivers, 'get'>;
}

/**
 * Hook events applied to their sessions: the agent's state, the conversation id a kind reports, the Stop summary.
 * Store only, no engine.
 */
export class SessionHooks {
  /**
   * Sessions stopped from outside the agent (the model gateway refused them at a budget), with why: the turn's own
   * end (Stop, StopFailure, an idle notification) leaves them waiting on the operator; a new turn or `release` ends it.
   */
  private readonly held = new Map<string, string>();

  constructor(private readonly d: SessionHooksDeps) {}

  /** See `held`. */
  hold(sessionId: string, message: string): void {
    this.held.set(sessionId, message);
  }

  release(sessionId: string): void {
    this.held.delete(sessionId);
  }

  /**
   * A hook event from nexus.hooks.<subjectWorkspaceId>. Identity comes from the subject (the NATS
   * user may publish only there), so an event naming another workspace's session is ignored; so is
   * one older than the state it would replace (hooks run concurrently and may arrive out of order).
   */
  apply(subjectWorkspaceId: string, msg: HookMessage): Session | null {
    const { d } = this;
    const row = d.store.get(msg.sessionId);
    if (!row || row.workspace_id !== subjectWorkspaceId || msg.workspaceId !== subjectWorkspaceId) return null;
    const name = msg.event.hook_event_name;
    // A kind that chooses its own conversation id names it only in its hooks: what its resume and queue need.
    const driver = d.drivers.get(row.agent);
    const conversation = driver.conversationFrom?.(name, msg.event) ?? null;
    if (conversation && conversation !== row.agent_thread_id) d.store.update(row.id, { agent_thread_id: conversation });
    if (name === 'Stop' || name === 'SessionEnd')
      d.signals.emit('agentStopped', { sessionId: row.id, workspaceId: row.workspace_id });
    if (name === 'Stop') d.signals.emit('turnEnded', { sessionId: row.id, workspaceId: row.workspace_id });
    if (row.agent_state_at && msg.at < row.agent_state_at) return null;
    const found = agentStateFromHook(msg.event, driver.speaker);
    if (!found) return null;
    const held = this.held.get(row.id);
    if (held !== undefined) {
      if (found.agentState !== 'working') return null;
      this.held.delete(row.id);
    }
    const change = keepNamedTool({ agentState: row.agent_state, message: row.agent_message }, found);
    d.startup.disarm(row.id);
    if (name === 'Stop') d.launcher.summarize(row.run_id, msg.event.last_assistant_message);
    return d.updates.patch(row.id, {
      agent_state: change.agentState,
      agent_state_at: msg.at,
      agent_message: change.message,
    });
  }

  /**
   * The workspace's hook relay died and was started again: events its agents raised meanwhile may be
   * lost, so each running session says so until its next event sets the state again.
   */
  noteGap(workspaceId: string): void {
    for (const row of this.d.store.list(workspaceId))
      if (row.status === 'running')
        this.d.updates.patch(row.id, {
          agent_message:
            'Hook events may have been missed (the hook relay restarted or lost them); the state updates with the next one.',
        });
  }
}
