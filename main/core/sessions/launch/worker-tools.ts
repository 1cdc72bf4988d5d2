import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { ACP_BRIDGE_FILES, type AgentDriver } from '../../agents';
import type { WorkspaceInfo } from '../../workspaces';
import type { SessionsConfig } from '../config';
import { mustSh, type ContainerExec, type ExecTarget } from '../container-sh';
import { hookCommandScript } from '../hooks/hook-command';
import {
  HOOK_MARKER,
  hookCommandPath,
  hookHandler,
  relayScriptPath,
  relayStartPath,
  relayStartScript,
} from '../hooks/hook-relay';
import { residentStartPath, residentStartScript } from './resident-mcp';

/** Host files of the worker-side tools, copied into each container once. */
export interface WorkerTools {
  hookScript: string;
  inboxSendScript: string;
  /** The resident hook relay (see hook-relay.ts). */
  relayScript: string;
  /** The bridge of ACP sessions (agents/acp/), beside the files it loads later; absent: no ACP session here. */
  acpBridgeScript?: string | undefined;
}

/** Where the hook command publishes: a publish-only NATS user for nexus.hooks.<workspaceId>. */
export interface HookTarget {
  url: string;
  user?: string;
  pass?: string;
  token?: string;
  /** How long core holds a permission request for the operator (the hook waits a little longer). */
  permissionWaitMs?: number;
}

type ToolsTarget = ExecTarget & Pick<WorkspaceInfo, 'id'>;

/**
 * Installs the hook command, the inbox helper, the hook relay, the resident nexus-mcp and each agent kind's
 * container-wide first-run state (user-level settings with Nexus's hooks) in the container; idempotent. Says whether the resident nexus-mcp listens (false: not
 * wanted, no NATS, or it did not start; the container's sessions then get a stdio nexus-mcp each).
 */
export async function installWorkerTools(
  runtime: ContainerExec,
  config: SessionsConfig,
  ws: ToolsTarget,
  tools: WorkerTools,
  hookTarget: HookTarget | null,
  agent: { drivers?: readonly AgentDriver[]; bypass?: boolean; residentMcp?: boolean } = {},
): Promise<{ residentMcp: boolean; residentProblem: string | null }> {
  const { toolsDir, stateDir } = config;
  const relay = {
    toolsDir,
    stateDir,
    natsFile: natsFile(config),
    port: config.hookRelayPort,
    workspaceId: ws.id,
  };
  const files: [string, string, Buffer][] = [
    [`${toolsDir}/nexus-hook.cjs`, '755', readFileSync(tools.hookScript)],
    [`${toolsDir}/nexus-inbox-send.cjs`, '755', readFileSync(tools.inboxSendScript)],
    [relayScriptPath(toolsDir), '755', readFileSync(tools.relayScript)],
  ];
  const bridgeDir = tools.acpBridgeScript ? dirname(tools.acpBridgeScript) : null;
  if (bridgeDir)
    for (const f of ACP_BRIDGE_FILES) files.push([`${toolsDir}/${f}`, '755', readFileSync(join(bridgeDir, f))]);
  if (hookTarget)
    files.push(
      // stateDir: where the relay finds the sessions' inbox addresses when it delivers a message.
      [natsFile(config), '600', Buffer.from(JSON.stringify({ ...hookTarget, stateDir }), 'utf8')],
      [relayStartPath(toolsDir), '700', Buffer.from(relayStartScript(relay), 'utf8')],
      [hookCommandPath(toolsDir), '755', Buffer.from(hookCommandScript(relay), 'utf8')],
    );
  const resident = hookTarget !== null && agent.residentMcp === true;
  if (resident) files.push([residentStartPath(toolsDir), '700', Buffer.from(residentStartScript(config), 'utf8')]);
  // The agent's own hook timeout outlasts Nexus's wait, so Nexus always steps aside first.
  const permissionTimeoutSeconds = Math.ceil((hookTarget?.permissionWaitMs ?? 120_000) / 1000) + 15;
  // Each kind's first-run state with our hooks merged in (ours, marked by HOOK_MARKER, replaced; the operator's
  // kept): its payload a 0600 file, its script run by node with that file on stdin.
  const setups: string[] = [];
  for (const driver of agent.drivers ?? []) {
    const setup = driver.containerSetup?.({
      repoDir: config.repoDir,
      bypass: agent.bypass ?? false,
      hook: (event, timeout, transport) =>
        hookHandler(event, relay, timeout, hookTarget === null ? 'node' : transport === 'http' ? 'http' : 'shell'),
      marker: HOOK_MARKER,
      permissionTimeoutSeconds,
    });
    if (!setup) continue;
    const payload = `${toolsDir}/setup-${driver.kind}.json`;
    files.push([payload, '600', Buffer.from(setup.payload, 'utf8')]);
    setups.push(setup.script, payload);
  }
  // One exec: the directories, every file (back to back on stdin, `dd` takes exactly each one's
  // length), each kind's first-run state (its script, its payload file on stdin), then the relay, started or
  // told to re-read its credentials.
  const script = `mkdir -p -m 700 "$1" "$2" && chmod 700 "$1" "$2" && umask 077 || exit 1
      start=$3 mcp=$4 nfiles=$5
      shift 5
      while [ "$nfiles" -gt 0 ]; do
        f=$1 m=$2 len=$3
        shift 3
        nfiles=$((nfiles - 1))
        dd bs="$len" count=1 iflag=fullblock of="$f.tmp" 2>/dev/null && chmod "$m" "$f.tmp" && mv "$f.tmp" "$f" || { echo "cannot write $f" >&2; exit 1; }
      done
      while [ $# -ge 2 ]; do
        node -e "$1" < "$2" || { echo "preparing the agent's first-run state failed" >&2; exit 1; }
        shift 2
      done
      [ -z "$start" ] || sh "$start" </dev/null || { echo "the hook relay did not start: $(tail -c 300 "$1/relay.log" 2>/dev/null)" >&2; exit 1; }
      [ -z "$mcp" ] || { sh "$mcp" </dev/null && echo resident-mcp=up; } || echo "resident-mcp=down $(tail -c 300 "$1/mcp.log" 2>/dev/null | tr '\n' ' ')"`;
  const out = await mustSh(
    runtime,
    ws,
    'install tools',
    script,
    [
      toolsDir,
      stateDir,
      hookTarget ? relayStartPath(toolsDir) : '',
      resident ? residentStartPath(toolsDir) : '',
      String(files.length),
      ...files.flatMap(([f, m, c]) => [f, m, String(c.length)]),
      ...setups,
    ],
    Buffer.concat(files.map(([, , c]) => c)),
  );
  const down = resident ? /^resident-mcp=down ?(.*)$/m.exec(out) : null;
  return {
    residentMcp: resident && /^resident-mcp=up$/m.test(out),
    residentProblem: down ? down[1]?.trim() || 'it did not listen' : null,
  };
}

export const natsFile = (config: Pick<SessionsConfig, 'toolsDir'>): string => `${config.toolsDir}/hook-nats.json`;
