import { WORKER_NODE } from '../../docker';
import { shellQuote } from '../../agents';
import { HOOK_MARKER, relayStartPath, type RelayPaths } from './hook-relay';

/**
 * The shell hook: a Claude session's command hooks (SessionStart, StopFailure: the events the pinned
 * CLI does not post as HTTP hooks) without a Node start. `nexus-hook.sh <event>` reads the event from
 * stdin and posts it to the workspace's resident hook relay over bash's /dev/tcp, with the session
 * header the HTTP hooks carry, so it keeps its place among them. On SessionStart it also hands the
 * relay the agent's inbox address (CLAUDE_CODE_MESSAGING_SOCKET/_TOKEN, only in the hook's
 * environment), which the relay writes to the session's inbox.json before it publishes the event (an
 * address with a byte a header cannot carry as it is, outside printable ASCII, goes the Node way).
 *
 * Measured (docs/performance.md): the Node hook cost 0.05 CPU-s per session start; this, a bash
 * start and one loopback request, about 2 ms.
 *
 * When the relay does not answer (no relay, a refused connection, no 200 in 3 s), the event goes to
 * the Node hook (nexus-hook.cjs), which publishes it itself and starts the relay again, as before.
 * When a relay answers but did not write the address (one started by an older core, without a state
 * dir), the Node hook writes only the address (`--inbox-only`). It prints nothing (SessionStart's
 * stdout would reach the agent's context) and exits 0.
 */
export function hookCommandScript(p: RelayPaths, node: string = WORKER_NODE): string {
  const q = shellQuote;
  return `#!/bin/bash
LC_ALL=C
event=$1 port=${p.port}
node_hook() { exec ${q(node)} ${q(`${p.toolsDir}/nexus-hook.cjs`)} ${q(p.stateDir)} ${q(p.natsFile)} "$port" ${q(
    relayStartPath(p.toolsDir),
  )} "$@" <<<"$body"; }
[[ \${NEXUS_SESSION_ID:-} =~ ^[A-Za-z0-9_-]{1,100}$ && \${NEXUS_WORKSPACE_ID:-} =~ ^[A-Za-z0-9_-]{1,100}$ ]] || exit 0
IFS= read -r -d '' body
inbox=0 extra=
socket=\${CLAUDE_CODE_MESSAGING_SOCKET:-} token=\${CLAUDE_CODE_MESSAGING_TOKEN:-}
if [[ $event = SessionStart && -n $socket ]]; then
  [[ $socket = /* && $socket$token != *[^[:print:]]* ]] || node_hook
  inbox=1 extra="X-Nexus-Inbox-Socket: $socket"$'\\r\\n'"X-Nexus-Inbox-Token: $token"$'\\r\\n'
fi
{ exec 3<>"/dev/tcp/127.0.0.1/$port"; } 2>/dev/null || node_hook
printf 'POST /${HOOK_MARKER} HTTP/1.1\\r\\nHost: 127.0.0.1:%s\\r\\nContent-Type: application/json\\r\\nX-Nexus-Session: %s\\r\\n%sContent-Length: %s\\r\\nConnection: close\\r\\n\\r\\n%s' \\
  "$port" "$NEXUS_SESSION_ID" "$extra" "\${#body}" "$body" >&3 2>/dev/null || node_hook
IFS=$' \\r' read -r -t 3 _ code _ <&3 || node_hook
[[ $code = 200 || $code = 204 ]] || node_hook
written=0
while IFS= read -r -t 3 line <&3; do
  line=\${line%$'\\r'}
  [[ -z $line ]] && break
  [[ \${line,,} = 'x-nexus-inbox: written' ]] && written=1
done
((inbox && !written)) && node_hook --inbox-only
exit 0
`;
}
