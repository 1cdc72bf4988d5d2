import { NexusError } from '../../../../shared/errors';
import type { DeliveryReport, DriverExec, DriverSession } from '../driver';
import { codexHome, codexQueueArgs } from './launch';

/**
 * A message to a Codex session (never typed into its terminal): `codex queue --thread=<id> --message=<text>` in the
 * session's CODEX_HOME, Codex's own durable queue (queue_1.sqlite). Its running TUI takes queued messages when it is
 * idle, one per turn (`turn_trigger: "queue"`), so a message sent while a tool call waits for the operator's
 * decision waits too, and decides nothing. `codex queue` exits 0 even when no TUI consumes the thread, so the
 * honest report is `queued`: the model sees it at the session's next idle moment, unconfirmed.
 */
export async function queueForCodex(exec: DriverExec, row: DriverSession, text: string): Promise<DeliveryReport> {
  if (!row.conversationId)
    throw new NexusError(
      'unavailable',
      `Codex has not reported its thread for session ${row.name} yet (its SessionStart hook); try again once it started.`,
    );
  const r = await exec(codexQueueArgs(row.conversationId, text), { env: { CODEX_HOME: codexHome(row.id) } });
  if (r.exitCode !== 0)
    throw new NexusError(
      'unavailable',
      `codex queue failed (exit ${r.exitCode}): ${(r.stderr || r.stdout).trim().slice(0, 300)}`,
    );
  return {
    status: 'queued',
    note:
      "Codex queued the message durably for this session's thread; its TUI takes it as a turn of its own when it is " +
      'next idle (after any tool call waiting for your decision). Codex sends no receipt, so this is unconfirmed.',
  };
}
