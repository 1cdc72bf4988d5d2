import { WORKER_NODE } from '../../docker';
import { shellQuote } from '../../agents';

/**
 * Hooks without a process per event. Each workspace container runs one resident hook relay
 * (resources/worker/nexus-hook-relay), started here through the runtime's exec at the first session
 * launch, under a shell loop that starts it again when it dies. It holds one NATS connection with the
 * workspace's hook-publisher credentials; the agent's HTTP hooks post to it on 127.0.0.1, so an event
 * costs a loopback POST and one publish instead of a Node start and a NATS handshake.
 *
 * Which events the pinned CLI (2.1.332) posts as `type: "http"` hooks, measured: UserPromptSubmit,
 * PreToolUse, PostToolUse, PermissionRequest (the response body's decision answers the dialog),
 * Notification, Stop, SessionEnd. SessionStart does not post, and StopFailure is not measured: both
 * stay command hooks (nexus-hook.cjs), which hand their event to the relay too, so every event of a
 * session goes out through one connection in the order the agent raised it.
 *
 * A relay that dies is started again by its loop; the new one's first message counts the deaths
 * (`crashes`), and core marks the workspace's running sessions, since events posted while it was
 * down are lost. If the loop itself is gone, the next command hook starts it (relay-start.sh).
 */

/** Every hook entry of ours carries this in its command or URL, so a re-seed replaces exactly ours. */
export const HOOK_MARKER = 'nexus-hook';

export interface RelayPaths {
  toolsDir: string;
  stateDir: string;
  natsFile: string;
  port: number;
  workspaceId: string;
}

export const relayScriptPath = (toolsDir: string): string => `${toolsDir}/nexus-hook-relay.cjs`;
export const relayStartPath = (toolsDir: string): string => `${toolsDir}/relay-start.sh`;
/** The shell hook (hook-command.ts). */
export const hookCommandPath = (toolsDir: string): string => `${toolsDir}/nexus-hook.sh`;

/**
 * The agent's hook handler for one event, by how it reaches the relay: `http`, a post the CLI makes itself; `shell`,
 * the shell hook, which hands the event to the relay (for events the CLI does not post); `node`, the Node hook
 * command (where there is no relay: without NATS, where it quietly does nothing; and for kinds whose hooks are
 * commands only, such as a permission gate that must block).
 */
export function hookHandler(
  event: string,
  p: RelayPaths,
  timeoutSeconds: number,
  via: 'http' | 'shell' | 'node',
): Record<string, unknown> {
  if (via === 'http')
    return {
      type: 'http',
      url: `http://127.0.0.1:${p.port}/${HOOK_MARKER}`,
      timeout: timeoutSeconds,
      // Measured: the CLI fills the header from its environment for the variables named here.
      headers: { 'X-Nexus-Session': '$NEXUS_SESSION_ID' },
      allowedEnvVars: ['NEXUS_SESSION_ID'],
    };
  if (via === 'shell')
    return {
      type: 'command',
      command: `bash ${shellQuote(hookCommandPath(p.toolsDir))} ${event}`,
      timeout: timeoutSeconds,
    };
  const command = [
    WORKER_NODE,
    `${p.toolsDir}/nexus-hook.cjs`,
    p.stateDir,
    p.natsFile,
    String(p.port),
    relayStartPath(p.toolsDir),
  ].map(shellQuote);
  return { type: 'command', command: command.join(' '), timeout: timeoutSeconds };
}

/**
 * relay-start.sh: starts the relay loop unless one runs (then it only sends SIGHUP, so a relay whose
 * server moved reconnects), and waits until the relay listens. flock keeps two starters from racing.
 * The loop counts a death unless the relay exits 75 (a planned restart).
 */
export function relayStartScript(p: RelayPaths): string {
  const q = shellQuote;
  return `#!/bin/sh
tools=${q(p.toolsDir)} nats=${q(p.natsFile)} port=${p.port} ws=${q(p.workspaceId)} state=${q(p.stateDir)}
loop="$tools/relay-loop.pid" ready="$tools/relay.pid"
exec 9>"$tools/relay.lock"
flock -w 10 9 || exit 1
if [ -f "$loop" ] && kill -0 "$(cat "$loop")" 2>/dev/null; then
  [ -f "$ready" ] && kill -HUP "$(cat "$ready")" 2>/dev/null
  exit 0
fi
rm -f "$ready"
setsid sh -c '
  exec 9>&-
  echo $$ > "$1/relay-loop.pid"
  n=0
  while :; do
    ${WORKER_NODE} "$1/nexus-hook-relay.cjs" "$2" "$3" "$4" "$n" "$1/relay.pid" "$5"
    [ $? = 75 ] || n=$((n + 1))
    rm -f "$1/relay.pid"
    sleep 0.2
  done' sh "$tools" "$nats" "$port" "$ws" "$state" </dev/null >/dev/null 2>>"$tools/relay.log" &
i=0
while [ ! -f "$ready" ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i + 1)); done
[ -f "$ready" ]
`;
}
