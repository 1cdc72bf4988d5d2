import { randomBytes } from 'node:crypto';
import { NexusError } from '../../../../shared/errors';
import type { SessionsConfig } from '../config';
import type { ContainerExec, ExecTarget } from '../container-sh';
import type { HelperReport } from '../../../../shared/inbox-protocol';
import { helperSend } from './inbox-helper';
import { RELAY_MAX_BYTES, RelayReport, type RelayMessage } from '../../../../shared/relay-message';
import { safeJson } from '../../safe-json';

/** How the workspace's resident hook relay takes a message over NATS (core.platform.relayMessage). */
export interface MessageRelay {
  /** The relay's answer; null when no relay of the workspace listens (then the helper delivers). */
  relayMessage(workspaceId: string, payload: string, timeoutMs: number): Promise<string | null>;
}

/** The two ways in: the relay when one listens, else the one-shot helper (its host file, put back if gone). */
export interface InboxRoutes {
  relay?: MessageRelay | null | undefined;
  /** The helper's bundle on the host (dist/worker/nexus-inbox-send.cjs): what goes back into a restarted container. */
  helperScript: string;
}

/** The report, and whether the container had lost its tools (it restarted; converge brings its agents back). */
export type InboxReport = HelperReport & { toolsLost?: true };

type Config = Pick<SessionsConfig, 'toolsDir' | 'stateDir' | 'sendTimeoutMs'>;

/** What the agent's receipts get after the close (inbox-protocol.ts): the same wait on both paths. */
const STATUS_WAIT_MS = 2000;

/**
 * Delivers text to a session's inbox and returns the typed report: through the workspace's hook relay (one NATS
 * request, no process started in the container) when one listens, else by running the one-shot helper in the
 * container with the text on stdin (inbox-helper.ts).
 */
export async function sendToInbox(
  runtime: ContainerExec,
  config: Config,
  ws: ExecTarget & { id: string },
  sessionId: string,
  text: string,
  routes: InboxRoutes,
): Promise<InboxReport> {
  const message: RelayMessage = {
    deliveryId: randomBytes(12).toString('hex'),
    sessionId,
    text,
    timeoutMs: config.sendTimeoutMs,
    statusWaitMs: STATUS_WAIT_MS,
  };
  const payload = JSON.stringify(message);
  const { relay } = routes;
  if (relay && Buffer.byteLength(payload) <= RELAY_MAX_BYTES) {
    const answer = await relay.relayMessage(ws.id, payload, config.sendTimeoutMs + STATUS_WAIT_MS + 1000);
    if (answer !== null) {
      const parsed = RelayReport.safeParse(safeJson(answer));
      if (parsed.success) return parsed.data;
      throw new NexusError('internal', 'The hook relay answered the message with something it cannot be.');
    }
  }
  const { report, reinstalled } = await helperSend(runtime, config, ws, sessionId, text, routes.helperScript, {
    statusWaitMs: STATUS_WAIT_MS,
  });
  return reinstalled ? { ...report, toolsLost: true } : report;
}
