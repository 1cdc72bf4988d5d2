import { readFileSync } from 'node:fs';
import { NexusError } from '../../../../shared/errors';
import { WORKER_NODE } from '../../docker';
import type { SessionsConfig } from '../config';
import type { ContainerExec, ExecTarget } from '../container-sh';
import { HelperOutcomes, type HelperReport } from '../../../../shared/inbox-protocol';

type Config = Pick<SessionsConfig, 'toolsDir' | 'stateDir' | 'sendTimeoutMs'>;

/** What the one-shot helper answered, and whether the container had lost it (its /tmp came back empty). */
export interface HelperAnswer {
  report: HelperReport;
  /** The helper was gone and was put back: the container restarted since its tools were installed. */
  reinstalled: boolean;
}

/** The wrapper's exit when the helper file is not in the container: nothing was run, nothing delivered. */
const HELPER_MISSING = 97;

export const inboxHelperPath = (toolsDir: string): string => `${toolsDir}/nexus-inbox-send.cjs`;

/**
 * Runs the one-shot helper in the container with the text on stdin (`docker exec`, a Node start). The
 * tools live on the container's /tmp tmpfs, which a restart empties, and they come back only when converge
 * relaunches a session there: a message in between finds no helper. So the helper is put back from the host
 * (`hostScript`) and run again; a helper that still cannot run is `unavailable` with the reason, never
 * `internal`.
 */
export async function helperSend(
  runtime: ContainerExec,
  config: Config,
  ws: ExecTarget,
  sessionId: string,
  text: string,
  hostScript: string,
  wait: { statusWaitMs: number },
): Promise<HelperAnswer> {
  const run = () => runHelper(runtime, config, ws, sessionId, text, wait.statusWaitMs);
  let r = await run();
  const reinstalled = r.exitCode === HELPER_MISSING;
  if (reinstalled) {
    await putHelperBack(runtime, config, ws, hostScript);
    r = await run();
  }
  const line = r.stdout.trim().split('\n').pop() ?? '';
  const report = parseReport(line);
  if (report) return { report, reinstalled };
  const why =
    r.exitCode === HELPER_MISSING
      ? `the helper ${inboxHelperPath(config.toolsDir)} is missing even after it was put back`
      : `it failed (exit ${r.exitCode}): ${r.stderr.trim().slice(0, 300) || 'no output'}`;
  throw new NexusError(
    'unavailable',
    `The message could not be handed to the inbox helper in workspace ${ws.name}'s container: ${why}.`,
  );
}

function runHelper(
  runtime: ContainerExec,
  config: Config,
  ws: ExecTarget,
  sessionId: string,
  text: string,
  statusWaitMs: number,
) {
  // `sh` first so a missing helper is told apart from a failing one by its exit code, not by Node's words.
  const script = `[ -r "$2" ] || exit ${HELPER_MISSING}; exec "$@"`;
  const argv = [WORKER_NODE, inboxHelperPath(config.toolsDir), config.stateDir, sessionId];
  return runtime.exec(ws, ['sh', '-c', script, 'sh', ...argv], {
    stdin: text,
    timeoutMs: config.sendTimeoutMs + 5000,
    env: { NEXUS_INBOX_TIMEOUT_MS: String(config.sendTimeoutMs), NEXUS_INBOX_STATUS_WAIT_MS: String(statusWaitMs) },
  });
}

/**
 * Writes the helper into the tools directory under a name of its own, then renames it into place: a converge
 * installing every tool at the same moment (worker-tools.ts) never sees half a file, nor this one its.
 */
async function putHelperBack(runtime: ContainerExec, config: Config, ws: ExecTarget, hostScript: string) {
  let bytes: Buffer;
  try {
    bytes = readFileSync(hostScript);
  } catch (e) {
    throw new NexusError(
      'unavailable',
      `The inbox helper is gone from workspace ${ws.name}'s container (it restarted) and Nexus cannot read its ` +
        `own copy to put it back (${hostScript}): ${(e as Error).message}. Run npm run build.`,
    );
  }
  const script =
    'mkdir -p -m 700 "$1" && t=$(mktemp "$1/.inbox-send.XXXXXX") && cat > "$t" && chmod 755 "$t" && mv -f "$t" "$2"';
  const r = await runtime.exec(ws, ['sh', '-c', script, 'sh', config.toolsDir, inboxHelperPath(config.toolsDir)], {
    stdin: bytes,
  });
  if (r.exitCode !== 0)
    throw new NexusError(
      'unavailable',
      `The inbox helper is gone from workspace ${ws.name}'s container (it restarted) and could not be put back: ` +
        `${(r.stderr || r.stdout).trim().slice(0, 300) || `exit ${r.exitCode}`}.`,
    );
}

function parseReport(line: string): HelperReport | null {
  try {
    const report = JSON.parse(line) as HelperReport;
    return HelperOutcomes.includes(report.outcome) ? report : null;
  } catch {
    return null;
  }
}
