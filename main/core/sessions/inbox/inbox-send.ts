import { NexusError } from '../../../../shared/errors';
import type { SessionsConfig } from '../config';
import type { ContainerExec, ExecTarget } from '../container-sh';
import { HelperOutcomes, type HelperReport } from './inbox-protocol';
import { WORKER_NODE } from '../../workspaces/worker-image';

/** Runs the inbox helper in the container with the text on stdin; returns its typed report. */
export async function sendToInbox(
  runtime: ContainerExec,
  config: Pick<SessionsConfig, 'toolsDir' | 'stateDir' | 'sendTimeoutMs'>,
  ws: ExecTarget,
  sessionId: string,
  text: string,
): Promise<HelperReport> {
  const helper = `${config.toolsDir}/nexus-inbox-send.cjs`;
  const r = await runtime.exec(ws, [WORKER_NODE, helper, config.stateDir, sessionId], {
    stdin: text,
    timeoutMs: config.sendTimeoutMs + 5000,
    env: { NEXUS_INBOX_TIMEOUT_MS: String(config.sendTimeoutMs) },
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
