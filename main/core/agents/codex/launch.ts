import { NexusError } from '../../../../shared/errors';
import { checkPrompt, shellQuote, type LaunchPlan } from '../launch';

/**
 * The Codex CLI's command line and configuration for a session (the second agent kind; docs/agents.md). Measured on
 * 0.169.0 (see docs/agents.md for what maps 1:1 to Claude Code and what differs):
 *  - the interactive TUI in the session's tmux window, the prompt as the positional argument after `--` (clap ends
 *    options there, so a prompt that looks like a flag or a subcommand name is still the prompt); `-i/--image` is
 *    variadic and would swallow a prompt after it, so Nexus never passes it and refuses it in the options it adds;
 *  - `--no-daemon` (otherwise the TUI starts a shared app-server daemon that copies itself into `$CODEX_HOME`),
 *    `--dangerously-bypass-hook-trust` (the "Hooks need review" screen: the hooks are Nexus's own);
 *  - `$CODEX_HOME` per session, outside temp dirs (Codex refuses to make helper binaries under one), holding
 *    config.toml (written 0600 from the session's run files: it may carry the delegated bearer) and hooks.json; the
 *    model provider is Nexus's gateway, signed in with the session's gateway credential (`env_key`), never a key;
 *  - full access (`danger-full-access`: its bubblewrap sandbox fails under Docker's default seccomp profile; the
 *    container is the sandbox) with `approval_policy = "never"`; Nexus gates every tool call in the PreToolUse
 *    hook instead, which blocks until the operator decides (nexus-hook, NEXUS_AGENT_KIND=codex).
 */

/** Per-session CODEX_HOME: under the worker user's home (persists with the container, for `codex resume`). */
export const codexHome = (sessionId: string): string => `/home/nexus/.nexus-codex/${sessionId}`;
/** config.toml as the launch writes it into the state dir (0600); the launch script copies it into CODEX_HOME. */
export const codexConfigFile = (stateDir: string): string => `${stateDir}/codex-config.toml`;

/** Options of Codex that take several values: never directly before the prompt (a test pins it). */
export const CODEX_VARIADIC_OPTIONS: readonly string[] = ['-i', '--image'];

export interface CodexLaunchInput {
  workspace: string;
  name: string;
  sessionId: string;
  workspaceId: string;
  initialMessage?: string | undefined;
  /** Relaunch: `codex resume <thread>` (no prompt), or a fresh start when the thread id was never learned. */
  resume?: boolean;
  /** Codex's thread id (from its SessionStart hook), for resume. */
  threadId?: string | null | undefined;
  /** hooks.json (codexHooksJson): nothing secret in it. */
  hooksJson: string;
  /** The file holding the session's gateway credential (null: no gateway; Codex cannot reach a model). */
  gatewayKeyFile: string | null;
}

/** The launch of a Codex session; `command(configFile)` takes the state dir's config.toml path. */
export function planCodexLaunch(input: CodexLaunchInput): LaunchPlan {
  const prompt =
    input.initialMessage !== undefined && !input.resume
      ? guardShellEscape(checkPrompt(input.initialMessage))
      : undefined;
  const home = codexHome(input.sessionId);
  const env = {
    CODEX_HOME: home,
    NEXUS_SESSION_ID: input.sessionId,
    NEXUS_WORKSPACE_ID: input.workspaceId,
    // nexus-hook: PreToolUse is this kind's permission gate (it blocks until the operator decides; fails closed).
    NEXUS_HOOK_GATE: 'PreToolUse',
  };
  return {
    command(configFile) {
      const argv = ['codex'];
      if (input.resume && input.threadId) argv.push('resume');
      argv.push('--no-daemon', '--dangerously-bypass-hook-trust');
      if (input.resume && input.threadId) argv.push(input.threadId);
      else if (prompt !== undefined) argv.push('--', prompt);
      assertCodexPromptPosition(argv, prompt !== undefined && !(input.resume && input.threadId));
      const configCopy = configFile
        ? `cp ${shellQuote(configFile)} "$CODEX_HOME/config.toml" && chmod 600 "$CODEX_HOME/config.toml"`
        : 'true';
      return {
        argv,
        env: { ...env },
        shellLine: `exec ${argv.map(shellQuote).join(' ')}`,
        preludeLines: [
          `(umask 077 && mkdir -p "$CODEX_HOME" && chmod 700 "$CODEX_HOME" && ${configCopy}) || exit 1`,
          `printf '%s\\n' ${shellQuote(input.hooksJson)} > "$CODEX_HOME/hooks.json" || exit 1`,
          // The session's gateway credential (config.toml's provider reads it from this variable; the real key
          // stays in core). Nothing of it in the pane.
          ...(input.gatewayKeyFile
            ? [`NEXUS_GATEWAY_KEY=$(cat ${shellQuote(input.gatewayKeyFile)}) && export NEXUS_GATEWAY_KEY || exit 1`]
            : []),
        ],
        permissionMode: 'full-access, gated by Nexus',
        promptGuarded: false,
      };
    },
  };
}

/**
 * Codex's TUI runs a prompt whose first character is `!` as a local shell command (`!cmd`), on the command line
 * too (measured on 0.169.0: `codex -- '!touch x'` makes x and sends nothing to the model), outside any hook, so no
 * gate sees it. Such a text gets a leading newline, which the TUI passes to the model as typed (`\n!…`); it is the
 * one change Nexus makes to a Codex prompt or message. A leading space or newline before `!` is not an escape.
 */
export function guardShellEscape(text: string): string {
  return text.startsWith('!') ? `\n${text}` : text;
}

/** The prompt, when there is one, is the last argument right after `--`, and nothing variadic precedes `--`. */
function assertCodexPromptPosition(argv: readonly string[], hasPrompt: boolean): void {
  if (!hasPrompt) return;
  const dashes = argv.indexOf('--');
  if (dashes !== argv.length - 2 || CODEX_VARIADIC_OPTIONS.includes(argv[dashes - 1] ?? ''))
    throw new NexusError('internal', 'codex launch: the prompt must be the last argument, right after `--`.');
}

/** A TOML basic string (JSON's escapes are TOML's; a lone surrogate, which TOML cannot carry, is replaced). */
const str = (s: string): string =>
  JSON.stringify(
    s.replace(/[\uD800-\uDFFF]/g, (c, i: number, all: string) => {
      const code = c.charCodeAt(0);
      const next = all.charCodeAt(i + 1);
      const prev = all.charCodeAt(i - 1);
      const paired = code < 0xdc00 ? next >= 0xdc00 && next <= 0xdfff : prev >= 0xd800 && prev < 0xdc00;
      return paired ? c : '\uFFFD';
    }),
  );
const key = (k: string): string => (/^[A-Za-z0-9_-]+$/.test(k) ? k : str(k));
const inline = (o: Record<string, string>): string =>
  `{ ${Object.entries(o)
    .map(([k, v]) => `${key(k)} = ${str(v)}`)
    .join(', ')} }`;

export interface CodexConfigInput {
  /** The session's worktree: trusted, so no trust screen. */
  worktree: string;
  /** The servers of the Claude `--mcp-config` map (nexus, nexus-delegated, the agent's external ones). */
  mcpServers: Record<string, unknown>;
  /** The session's gateway URL for this kind (its Responses API under `/v1`); null: none (no model). */
  gatewayUrl: string | null;
  /** The model to ask for (a custom upstream's, e.g. the tests' stand-in); unset: Codex's default. */
  model?: string | undefined;
  /** Tool calls of these MCP servers are not gated (Core authorises platform tools itself), as for Claude. */
  autoApproveServers?: readonly string[];
}

/** The session's config.toml: first-run screens passed, updates and analytics off, full access, Nexus's servers. */
export function codexConfigToml(c: CodexConfigInput): string {
  const lines: string[] = [];
  if (c.model) lines.push(`model = ${str(c.model)}`);
  if (c.gatewayUrl) lines.push('model_provider = "nexus"');
  lines.push(
    'check_for_update_on_startup = false',
    'cli_auth_credentials_store = "file"',
    'sandbox_mode = "danger-full-access"',
    'approval_policy = "never"',
    '',
    '[analytics]',
    'enabled = false',
    '',
    `[projects.${str(c.worktree)}]`,
    'trust_level = "trusted"',
  );
  if (c.gatewayUrl)
    lines.push(
      '',
      '[model_providers.nexus]',
      'name = "Nexus model gateway"',
      `base_url = ${str(`${c.gatewayUrl.replace(/\/+$/, '')}/v1`)}`,
      'wire_api = "responses"',
      // The session's gateway credential, as a Bearer (exported by the launch script from its run file).
      'env_key = "NEXUS_GATEWAY_KEY"',
      'requires_openai_auth = false',
      // Retries: a core restart (or kill -9) closes the gateway's connections mid-request; the request is sent
      // again and lands on the restarted core (same port, kept in the data dir). Codex backs off exponentially.
      'stream_max_retries = 10',
      'request_max_retries = 10',
    );
  for (const [name, raw] of Object.entries(c.mcpServers)) {
    const e = raw as { type?: string; url?: string; headers?: Record<string, string> } & {
      command?: string;
      args?: string[];
      env?: Record<string, string>;
    };
    lines.push('', `[mcp_servers.${key(name)}]`);
    if (e.type === 'http' && e.url) {
      lines.push(`url = ${str(e.url)}`);
      if (e.headers && Object.keys(e.headers).length) lines.push(`http_headers = ${inline(e.headers)}`);
    } else {
      lines.push(`command = ${str(e.command ?? '')}`, `args = [${(e.args ?? []).map(str).join(', ')}]`);
      if (e.env && Object.keys(e.env).length) lines.push(`env = ${inline(e.env)}`);
    }
    lines.push('startup_timeout_sec = 30');
    if (c.autoApproveServers?.includes(name)) lines.push('default_tools_approval_mode = "approve"');
  }
  return `${lines.join('\n')}\n`;
}

/** hooks.json for CODEX_HOME: Claude's shape; every event is a command hook into the resident relay. */
export function codexHooksJson(
  handler: (event: string, timeoutSeconds: number) => Record<string, unknown>,
  gateTimeoutSeconds: number,
): string {
  const hooks: Record<string, unknown[]> = {};
  for (const event of CODEX_HOOK_EVENTS)
    hooks[event] = [{ hooks: [handler(event, event === 'PreToolUse' ? gateTimeoutSeconds : 10)] }];
  return JSON.stringify({ hooks });
}

/** The events Codex 0.169 raises in the TUI that Nexus uses (no Notification / idle event: Stop is idle). */
export const CODEX_HOOK_EVENTS = ['SessionStart', 'UserPromptSubmit', 'PreToolUse', 'PostToolUse', 'Stop'] as const;

/** The message to queue: `codex queue` takes it as an argument, so it must be one argv string. */
export function codexQueueArgs(threadId: string, text: string): string[] {
  if (!text) throw new NexusError('bad_request', 'The message is empty.');
  if (text.includes('\0')) throw new NexusError('bad_request', 'The message contains a NUL character.');
  if (Buffer.byteLength(text, 'utf8') > 131_071)
    throw new NexusError('bad_request', 'A message to a Codex session is limited to 131,071 bytes (one argument).');
  return ['codex', 'queue', `--thread=${threadId}`, `--message=${guardShellEscape(text)}`];
}
