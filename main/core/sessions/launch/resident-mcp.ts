import { createHash, randomBytes } from 'node:crypto';
import { RESIDENT_MCP_PATH, RESIDENT_SESSION_HEADER, type ResidentRunFile } from '../../../../shared/resident-mcp';
import type { RunCredentials } from '../../platform';
import type { SessionsConfig } from '../config';
import { shellQuote } from '../../agents';
import type { McpHttpEntry } from './session-runs';

/**
 * One nexus-mcp per workspace container (resources/worker/nexus-mcp/resident-server.ts), serving
 * every Claude Code session in it over Streamable HTTP on 127.0.0.1 instead of a Node process per
 * session (docs/performance.md, "One nexus-mcp per container"). Started like the hook relay: at the
 * tools' install, under a shell loop that starts it again when it dies (a restarted one takes up the
 * CLIs' MCP sessions), and checked again by every launch exec (mcp-start.sh: a loop that is gone is
 * started again before the windows open). Where it cannot start (an image whose nexus-mcp predates
 * it, a port taken), the container's sessions get the stdio nexus-mcp, as Codex sessions always do.
 *
 * Each session keeps its own identity: core draws it a bearer (32 random bytes) at every run start;
 * the session's MCP config carries it with the session's id, and the session's run file (0600 in its
 * state dir, beside its `nats-password`) holds only its SHA-256 and the run's NATS identity.
 */

export const newBearer = (): string => randomBytes(32).toString('base64url');

/** `<stateDir>/<sessionId>/mcp-run.json`: what the resident server reads for the session. */
export function residentRunFile(creds: RunCredentials, bearer: string): string {
  const run: ResidentRunFile = {
    runId: creds.runId,
    natsUrl: creds.natsUrl,
    ...(creds.user ? { user: creds.user } : {}),
    inboxPrefix: creds.inboxPrefix,
    password: creds.password !== null,
    bearerSha256: createHash('sha256').update(bearer).digest('hex'),
  };
  return `${JSON.stringify(run)}\n`;
}

/** The session's `nexus` entry: the resident server, with its session id and bearer. */
export function residentMcpEntry(port: number, sessionId: string, bearer: string): McpHttpEntry {
  return {
    type: 'http',
    url: `http://127.0.0.1:${port}${RESIDENT_MCP_PATH}`,
    headers: { Authorization: `Bearer ${bearer}`, [RESIDENT_SESSION_HEADER]: sessionId },
  };
}

export const residentStartPath = (toolsDir: string): string => `${toolsDir}/mcp-start.sh`;

/**
 * mcp-start.sh: starts the resident server's loop unless one runs, and waits until it listens (exit
 * 0; up to 30 s: a start from the snapshot takes ~0.1 s, seconds at load 50) or gives up (exit 1: its
 * sessions then get the stdio nexus-mcp). flock keeps two starters from
 * racing. The loop ends after five
 * starts in a row that never listened (an image whose nexus-mcp does not know `--serve`).
 */
export function residentStartScript(
  config: Pick<SessionsConfig, 'toolsDir' | 'stateDir' | 'nexusMcpCommand' | 'residentMcpPort'>,
): string {
  const q = shellQuote;
  return `#!/bin/sh
tools=${q(config.toolsDir)}
loop="$tools/mcp-loop.pid" ready="$tools/mcp.pid"
exec 9>"$tools/mcp.lock"
flock -w 10 9 || exit 1
if [ -f "$loop" ] && kill -0 "$(cat "$loop")" 2>/dev/null; then
  i=0
  while [ ! -f "$ready" ] && [ $i -lt 600 ] && [ -f "$loop" ]; do sleep 0.05; i=$((i + 1)); done
  [ -f "$ready" ]
  exit
fi
rm -f "$ready"
setsid sh -c '
  exec 9>&-
  echo $$ > "$1/mcp-loop.pid"
  n=0
  while [ $n -lt 5 ]; do
    "$2" --serve "$3" "$4" "$1/mcp.pid"
    [ -f "$1/mcp.pid" ] && n=0 || n=$((n + 1))
    rm -f "$1/mcp.pid"
    sleep 0.2
  done
  rm -f "$1/mcp-loop.pid"' sh "$tools" ${q(config.nexusMcpCommand)} ${config.residentMcpPort} ${q(config.stateDir)} </dev/null >/dev/null 2>>"$tools/mcp.log" &
i=0
# Until it listens, for up to 30 s, or until the loop gave up (its pid file gone; written within its first second).
while [ ! -f "$ready" ] && [ $i -lt 600 ] && { [ $i -lt 20 ] || [ -f "$loop" ]; }; do sleep 0.05; i=$((i + 1)); done
[ -f "$ready" ]
`;
}
