import { NexusError } from '../../../../shared/errors';
import type { WorkspaceRuntime } from '../../workspaces';
import type { SessionsConfig } from '../config';
import type { MemoryKills } from '../memory/memory-kills';
import type { SessionRow, SessionStore } from '../session-store';
import type { AgentDrivers } from '../../agents';
import { sendToInbox, type MessageRelay } from './inbox-send';
import { deliveryOf, type DeliveryResult } from './message-delivery';

/** How long a message to a session whose agent is starting waits for its inbox (a start at load takes 10–40 s). */
const STARTING_WAIT_MS = 45_000;

export interface SessionMessagesDeps {
  store: Pick<SessionStore, 'get'>;
  runtime: Pick<WorkspaceRuntime, 'find' | 'exec'>;
  config: SessionsConfig;
  /** The inbox helper's bundle on the host (what goes back into a restarted container). */
  helperScript: string;
  /** core.platform: the workspace's hook relay over NATS (absent: the helper's docker exec). */
  relay: MessageRelay | undefined;
  /** A missing inbox may be an agent the OOM killer took: this looks, and marks it. */
  memoryKills: Pick<MemoryKills, 'check'>;
  /** A kind whose driver delivers messages its own way (its durable queue) gets them that way. */
  drivers: Pick<AgentDrivers, 'get'>;
}

/**
 * A message to a session, through its inbox socket (never typed into the terminal). An inbox not
 * there yet is waited for once (a starting agent, a relaunch after a container restart); one that
 * stays missing is answered with why (killed for memory, the agent exited, never came back).
 */
export class SessionMessages {
  constructor(private readonly d: SessionMessagesDeps) {}

  async send(row: SessionRow, text: string): Promise<DeliveryResult & { sessionId: string }> {
    const { d } = this;
    const ws = d.runtime.find(row.workspace_id);
    if (row.status !== 'running' || !ws?.running)
      throw new NexusError('conflict', `Session ${row.name} is not running${row.reason ? `: ${row.reason}` : '.'}`);
    const driver = d.drivers.get(row.agent);
    if (driver.deliver) {
      const exec = (cmd: string[], o?: { env?: Record<string, string>; timeoutMs?: number }) =>
        d.runtime.exec(ws, cmd, { timeoutMs: o?.timeoutMs ?? d.config.sendTimeoutMs, env: o?.env });
      const session = { id: row.id, name: row.name, conversationId: row.agent_thread_id };
      return { sessionId: row.id, ...(await driver.deliver(exec, session, text)) };
    }
    const routes = { relay: d.relay, helperScript: d.helperScript };
    const send = () => sendToInbox(d.runtime, d.config, ws, row.id, text, routes);
    const stateAt = row.agent_state_at;
    let report = await send();
    // The container restarted under the session (its /tmp, tools and inbox addresses, came back empty): converge
    // relaunches the agent, so the message waits for that, as for a starting agent, then goes.
    const restarted = report.outcome === 'socket_missing' && report.toolsLost === true;
    if (restarted && (await this.untilRelaunched(row.id, stateAt))) report = await send();
    // No inbox yet because the agent is still starting (a create, a relaunch after a restart): it announces its
    // inbox with SessionStart, so the message waits for that once, as long as a start takes, then goes.
    if (report.outcome === 'socket_missing' && (await this.untilStarted(row.id))) report = await send();
    // No inbox socket: if the OOM killer took the agent, the session is not running (and now says so).
    if (report.outcome === 'socket_missing' && (await d.memoryKills.check(ws.id)).includes(row.id))
      throw new NexusError('conflict', `Session ${row.name} is not running: ${d.store.get(row.id)?.reason}`);
    // No inbox because the agent ended (its SessionEnd came, no start since): that, not "not announced yet".
    const now = d.store.get(row.id);
    if (report.outcome === 'socket_missing' && now?.agent_state === 'exited')
      throw new NexusError(
        'conflict',
        `The agent of session ${row.name} has exited (${now.agent_message ?? 'no reason given'}): ` +
          'restart its workspace to relaunch it, or delete the session.',
      );
    if (report.outcome === 'socket_missing' && restarted)
      throw new NexusError(
        'unavailable',
        `The container of session ${row.name} restarted and its agent did not come back within ` +
          `${STARTING_WAIT_MS / 1000} s (Nexus relaunches it once it sees the workspace running): the message was ` +
          'not delivered; send it again.',
      );
    return { sessionId: row.id, ...deliveryOf(report, row.name) };
  }

  /**
   * Whether the agent of a session whose container restarted came back within STARTING_WAIT_MS: converge marks it
   * `starting` when it relaunches it, its SessionStart moves it on (or came first: a state newer than `stateAt`).
   */
  private async untilRelaunched(id: string, stateAt: string | null): Promise<boolean> {
    const until = Date.now() + STARTING_WAIT_MS;
    let relaunched = false;
    while (Date.now() < until) {
      await new Promise((r) => setTimeout(r, 250));
      const row = this.d.store.get(id);
      if (row?.status !== 'running') return false;
      if (row.agent_state === 'starting') relaunched = true;
      else if (relaunched || (row.agent_state_at !== null && row.agent_state_at > (stateAt ?? ''))) return true;
    }
    return false;
  }

  /**
   * Whether a session whose agent is starting left `starting` (its SessionStart arrived) within
   * STARTING_WAIT_MS; false at once for one that was not starting, and for one that stopped running meanwhile.
   */
  private async untilStarted(id: string): Promise<boolean> {
    if (this.d.store.get(id)?.agent_state !== 'starting') return false;
    const until = Date.now() + STARTING_WAIT_MS;
    while (Date.now() < until) {
      await new Promise((r) => setTimeout(r, 250));
      const row = this.d.store.get(id);
      if (row?.status !== 'running' || row.agent_state === 'exited') return false;
      if (row.agent_state !== 'starting') return true;
    }
    return false;
  }
}
