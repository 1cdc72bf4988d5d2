import { NexusError } from '../../../../shared/errors';
import { WORKER_NODE } from '../../docker';
import type { AgentDriver, AgentDriverDeps } from '../driver';
import type { AgentSecretKind } from '../secret-kind';
import { checkPrompt, shellQuote, type LaunchCommand } from '../launch';
import type { AcpKindDeclaration } from './declaration';
import { PinnedNpmCli } from '../pinned-npm-cli';

/** The bridge in every worker (installed with the worker tools; resources/worker/nexus-acp-bridge). */
export const acpBridgePath = (toolsDir: string): string => `${toolsDir}/nexus-acp-bridge.cjs`;

/** The bridge's files, side by side: its entry, then what it loads once the agent is spawned (worker-bundles.mjs). */
export const ACP_BRIDGE_FILES = [
  'nexus-acp-bridge.cjs',
  'nexus-acp-bridge-link.cjs',
  'nexus-acp-bridge-front.cjs',
] as const;

/** The session's MCP servers in ACP's form, a run file the bridge puts into session/new (never sent over NATS). */
const ACP_MCP_FILE = 'acp-mcp.json';

/**
 * The driver of an ACP kind, made from its declaration. Its session's window runs the bridge, which starts the agent
 * in the worktree and holds its stdio (a core restart never ends a turn); core speaks the protocol (acp-sessions.ts).
 * Permission asks come as `session/request_permission` and go the one permission path; nobody deciding in time
 * rejects (fails closed). Messages wait for the running turn and go as the next prompt (`queued`).
 */
export function acpDriver(decl: AcpKindDeclaration): ((deps: AgentDriverDeps) => AgentDriver) & {
  cliCredentialFiles: readonly string[];
  secretKinds: readonly AgentSecretKind[];
} {
  const make = (deps: AgentDriverDeps): AgentDriver => {
    const cli = new PinnedNpmCli(decl.cli.spec, { cliDir: deps.config.cliDir });
    return {
      kind: decl.kind,
      label: decl.label,
      speaker: decl.speaker,
      capabilities: { unansweredPermission: 'denied', messageReceipts: false, structured: true },
      baseUrl: deps.config.baseUrl ?? null,
      cli: {
        info: () => cli.info(),
        locate: async (cpu) => cli.find(cpu)?.mountDir ?? null,
        mountTarget: decl.cli.mountTarget,
        pathEntries: [],
      },
      credential: {
        secretKinds: decl.model.secretKinds,
        describe: decl.model.describe,
        // No kind's key enters a container: the gateway signs its requests in core.
        fileFor: () => '',
        files: [],
      },
      gateway: {
        wire: decl.model.wire,
        upstream: deps.config.baseUrl ?? decl.model.upstream,
        headers: (kind, value) => decl.model.headers(kind, value),
      },
      usesResidentMcp: decl.mcpTransports.includes('http'),
      needsCredential: true,
      async ready(exec, workspace) {
        const bin = decl.cli.argv.find((a) => a.startsWith(decl.cli.mountTarget)) ?? decl.cli.mountTarget;
        const r = await exec(['sh', '-c', `[ -e ${shellQuote(bin)} ] || exit 3`]);
        if (r.exitCode === 3)
          throw new NexusError(
            'unavailable',
            `Workspace ${workspace} has no ${decl.label}: install it on the host with bash scripts/install-acp-cli.sh ` +
              `${decl.kind} (or set NEXUS_${decl.kind.toUpperCase()}_CLI_DIR), then create the workspace again.`,
          );
      },
      plan(input) {
        const initial = input.initialMessage === undefined ? null : checkPrompt(input.initialMessage);
        return {
          command(mcpConfig?: string): LaunchCommand {
            const argv = [
              WORKER_NODE,
              acpBridgePath(input.worker.toolsDir),
              '--nats',
              input.worker.natsFile,
              '--workspace',
              input.workspaceId,
              '--session',
              input.sessionId,
              ...(mcpConfig ? ['--mcp', mcpConfig] : []),
              ...(initial !== null && !input.resume ? ['--initial', initial] : []),
              '--',
              ...decl.cli.argv,
            ];
            const gateway = input.gateway;
            const model = deps.config.baseUrl ? 'nexus-model' : null;
            return {
              argv,
              env: {
                ...(gateway ? decl.env({ gatewayUrl: gateway.url, model }) : {}),
                ...(gateway ? { NEXUS_GATEWAY_KEY_FILE: gateway.keyFile } : {}),
                NEXUS_SESSION_ID: input.sessionId,
              },
              shellLine: `exec ${argv.map(shellQuote).join(' ')}`,
              // The session's gateway credential (useless anywhere else) into the variable the agent reads, by the
              // shell's own `read` (no subshell and `cat` before the bridge starts; the file has no newline).
              preludeLines: gateway
                ? [`IFS= read -r ${decl.keyVar} <"$NEXUS_GATEWAY_KEY_FILE"`, `export ${decl.keyVar}`]
                : [],
              permissionMode: decl.askMode ?? 'default',
              promptGuarded: false,
            };
          },
        };
      },
      mcpConfig: ({ stateDir, servers }) => ({
        file: `${stateDir}/${ACP_MCP_FILE}`,
        content: `${JSON.stringify(acpMcpServers(servers, decl.mcpTransports))}\n`,
      }),
      deliver: async (_exec, session, text) => {
        if (!deps.acp) throw new NexusError('unavailable', 'This Nexus has no ACP client (no platform service).');
        return deps.acp.deliver(session.id, text);
      },
      acp: decl,
      ...(decl.userSettings
        ? { containerSetup: () => ({ script: MERGE_SETTINGS, payload: JSON.stringify(decl.userSettings) }) }
        : {}),
      afterRelaunch: () => ({ state: 'starting' }),
    };
  };
  return Object.assign(make, { cliCredentialFiles: decl.credentialFiles, secretKinds: decl.model.secretKinds });
}

/** Merges `{file, merge}` (stdin) into ~/<file>, one level deep, keeping the operator's other keys (0600). */
const MERGE_SETTINGS = `
const fs = require('fs'); const path = require('path'); const os = require('os');
const p = JSON.parse(fs.readFileSync(0, 'utf8'));
const f = path.join(os.homedir(), p.file);
let v = {}; try { v = JSON.parse(fs.readFileSync(f, 'utf8')); } catch {}
if (!v || typeof v !== 'object' || Array.isArray(v)) v = {};
const isObj = (o) => o && typeof o === 'object' && !Array.isArray(o);
for (const [k, x] of Object.entries(p.merge)) v[k] = isObj(x) && isObj(v[k]) ? { ...v[k], ...x } : x;
fs.mkdirSync(path.dirname(f), { recursive: true, mode: 0o700 });
fs.writeFileSync(f + '.nexus-tmp', JSON.stringify(v, null, 2) + '\\n', { mode: 0o600 }); fs.renameSync(f + '.nexus-tmp', f);
`;

/**
 * Servers in Claude's `mcpServers` shape (sessions/launch/session-runs.ts) as ACP's `McpServer[]`: stdio
 * `{name, command, args, env:[{name,value}]}`, HTTP `{type:"http", name, url, headers:[{name,value}]}`; an HTTP server
 * is left out for a kind that takes only stdio, and a stdio one is marked `front: "http"` for a kind that takes only
 * HTTP (the bridge serves it over HTTP on loopback and gives the agent that).
 */
export function acpMcpServers(servers: Record<string, unknown>, transports: readonly ('stdio' | 'http')[]): object[] {
  const pairs = (o: unknown): { name: string; value: string }[] =>
    Object.entries((o ?? {}) as Record<string, unknown>).map(([name, value]) => ({ name, value: String(value) }));
  const out: object[] = [];
  for (const [name, raw] of Object.entries(servers)) {
    const e = raw as {
      type?: string;
      command?: string;
      args?: unknown[];
      env?: unknown;
      url?: string;
      headers?: unknown;
    };
    if (e.command && transports.includes('stdio'))
      out.push({ name, command: e.command, args: (e.args ?? []).map(String), env: pairs(e.env) });
    else if (e.url && transports.includes('http'))
      out.push({ type: 'http', name, url: e.url, headers: pairs(e.headers) });
    // A kind that takes only HTTP gets a stdio server through the bridge's HTTP front (nexus-acp-bridge/mcp-front.ts).
    else if (e.command && transports.includes('http'))
      out.push({ name, command: e.command, args: (e.args ?? []).map(String), env: pairs(e.env), front: 'http' });
  }
  return out;
}
