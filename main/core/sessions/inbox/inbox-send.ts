import { randomBytes } from 'node:crypto';
import { NexusError } from '../../../../shared/errors';
import type { SessionsConfig } from '../config';
import type { ContainerExec, ExecTarget } from '../container-sh';
import { HelperOutcomes, type HelperReport } from './inbox-protocol';
import { RELAY_MAX_BYTES, RelayReport, type RelayMessage } from './relay-message';
import { WORKER_NODE } from '../../workspaces/worker-image';

/** How the workspace's resident hook relay takes a message over NATS (core.platform.relayMessage). */
export interface MessageRelay {
  /** The relay's answer; null when no relay of the workspace listens (then the helper delivers). */
  relayMessage(workspaceId: string, payload: string, timeoutMs: number): Promise<string | null>;
}

type Config = Pick<SessionsConfig, 'toolsDir' | 'stateDir' | 'sendTimeoutMs'>;

/** What the agent's receipts get after the close (inbox-protocol.ts): the same wait on both paths. */
const STATUS_WAIT_MS = 2000;

/**
 * Delivers text to a session's inbox and returns the typed report: through the workspace's hook relay (one NATS
 * request, no process started in the container) when one listens, else by running the one-shot helper in the
 * container with the text on stdin.
 */
export async function sendToInbox(
  runtime: ContainerExec,
  config: Config,
  ws: ExecTarget & { id: string },
  sessionId: string,
  text: string,
  relay?: MessageRelay | null,
): Promise<HelperReport> {
  const message: RelayMessage = {
    deliveryId: randomBytes(12).toString('hex'),
    sessionId,
    text,
    timeoutMs: config.sendTimeoutMs,
    statusWaitMs: STATUS_WAIT_MS,
  };
  const payload = JSON.stringify(message);
  if (relay && Buffer.byteLength(payload) <= RELAY_MAX_BYTES) {
    const answer = await relay.relayMessage(ws.id, payload, config.sendTimeoutMs + STATUS_WAIT_MS + 1000);
    if (answer !== null) {
      const parsed = RelayReport.safeParse(safeJson(answer));
      if (parsed.success) return parsed.data;
      throw new NexusError('internal', 'The hook relay answered the message with something it cannot be.');
    }
  }
  return helperSend(runtime, config, ws, sessionId, text);
}

async function helperSend(
  runtime: ContainerExec,
  config: Config,
  ws: ExecTarget,
  sessionId: string,
  text: string,
): Promise<HelperReport> {
  const helper = `${config.toolsDir}/nexus-inbox-send.cjs`;
  const r = await runtime.exec(ws, [WORKER_NODE, helper, config.stateDir, sessionId], {
    stdin: text,
    timeoutMs: config.sendTimeoutMs + 5000,
    env: { NEXUS_INBOX_TIMEOUT_MS: String(config.sendTimeoutMs), NEXUS_INBOX_STATUS_WAIT_MS: String(STATUS_WAIT_MS) },
  });
  const line = r.stdout.trim().split('\n').pop() ?? '';
  try {
    const report = JSON.parse(line) as HelperReport;
    if (HelperOutcomes.includes(report.outcome)) return report;
  } catch {
    // fall through
  }
  throw new NexusError('internal', `The inbox helper failed (exit ${r.exitCode}): ${r.stderr.trim().slice(0, 300)}`);
}

function safeJson(s: string): unknown {
  try {
    return JSON.parse(s);
  } catch {
    return null;
  }
}
