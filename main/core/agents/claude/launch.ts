import { NexusError } from '../../../../shared/errors';
import type { AgentLaunchConfig, SessionGateway } from '../driver';
import { checkPrompt, shellQuote, type LaunchCommand, type LaunchPlan } from '../launch';
import { permissionModeFor } from '../permission-mode';
import { agentLaunchEnv } from './launch-env';

/**
 * Builds the agent CLI's command line for a session. Everything the CLI's argument parser could
 * get wrong lives here (see docs/sessions.md, "Launch"), so a CLI
 * update is a one-file change:
 *  - every option we add uses `--opt=value`, which takes exactly one value and can never swallow
 *    the prompt, even for variadic options (`--mcp-config`) or optional-value ones (`--remote-control`);
 *  - the prompt comes last, after `--`, so an operator-configured variadic flag before it stops there;
 *  - a prompt that could be read as a subcommand name gets a trailing newline (see guardSubcommand);
 *  - the command is exec'd with stdout on the tmux pane: never piped (a pipe flips the CLI to --print).
 */

/** Options that take `<values...>` and swallow every following argument that does not start with `-`. */
export const VARIADIC_OPTIONS: readonly string[] = [
  '--add-dir',
  '--allowedTools',
  '--allowed-tools',
  '--disallowedTools',
  '--disallowed-tools',
  '--tools',
  '--mcp-config',
  '--betas',
  '--file',
  '--channels',
  '--dangerously-load-development-channels',
];

/** Options with an optional value: they also eat the next argument that does not start with `-`. */
export const OPTIONAL_VALUE_OPTIONS: readonly string[] = [
  '-d',
  '--debug',
  '-r',
  '--resume',
  '--from-pr',
  '-w',
  '--worktree',
  '--teleport',
  '--cloud',
  '--remote',
  '--remote-control',
  '--rc',
  '--prompt-suggestions',
];

/** Options that put the session in bypassPermissions: only the workspace's own option may (see LaunchInput.agent). */
const BYPASS_FLAGS = ['--dangerously-skip-permissions', '--allow-dangerously-skip-permissions'];

export interface LaunchInput {
  workspace: string;
  name: string;
  /** Nexus's session id; exported to the agent's environment so its hooks can name the session. */
  sessionId: string;
  workspaceId: string;
  /** The agent conversation id: `--session-id` on first launch, `--resume` on relaunch. */
  agentSessionId: string;
  initialMessage?: string | undefined;
  /** The session's own `--mcp-config` file (its platform run's nexus-mcp), after the operator's one. */
  mcpConfig?: string | undefined;
  /** Relaunch after a restart: resume the conversation, never repeat the initial message. */
  resume?: boolean;
  /** The session's way to its model (Nexus's gateway), and whether the workspace runs it in bypassPermissions. */
  agent?: { gateway?: SessionGateway | null | undefined; bypass?: boolean } | undefined;
}

/** Checks the launch (throws bad_request for a prompt or agent config that cannot be launched). */
export function planLaunch(config: AgentLaunchConfig, input: Omit<LaunchInput, 'mcpConfig'>): LaunchPlan {
  checkExtraArgs(config.agentArgs);
  const mode = permissionModeFor({
    configured: config.permissionMode,
    customEndpoint: Boolean(input.agent?.gateway),
    bypass: input.agent?.bypass ?? false,
  }).mode;
  const prompt = input.initialMessage !== undefined && !input.resume ? checkPrompt(input.initialMessage) : undefined;
  const guarded = prompt === undefined ? undefined : guardSubcommand(prompt);
  const env = {
    ...agentLaunchEnv(input.agent?.gateway ?? null),
    NEXUS_SESSION_ID: input.sessionId,
    NEXUS_WORKSPACE_ID: input.workspaceId,
    CLAUDE_CODE_SESSION_NAME: `${input.workspace} · ${input.name}`,
  };
  return {
    command(mcpConfig) {
      // The configured command (the tests' fixture) in place of the CLI, else the CLI itself.
      const argv: string[] = [...(config.agentCommand ?? ['claude'])];
      argv.push(`--permission-mode=${mode}`);
      argv.push(input.resume ? `--resume=${input.agentSessionId}` : `--session-id=${input.agentSessionId}`);
      if (config.mcpConfig) argv.push(`--mcp-config=${config.mcpConfig}`);
      if (mcpConfig) argv.push(`--mcp-config=${mcpConfig}`);
      if (config.remoteControl) argv.push(`--remote-control=${input.workspace} · ${input.name}`);
      argv.push(...config.agentArgs);
      // `--` ends options, so nothing before it can take the prompt as its value.
      if (guarded !== undefined) argv.push('--', guarded);
      assertPromptPosition(argv);
      return {
        argv,
        env: { ...env },
        shellLine: `exec ${argv.map(shellQuote).join(' ')}`,
        preludeLines: [],
        permissionMode: mode,
        promptGuarded: guarded !== prompt,
      };
    },
  };
}

/** The launch command in one step (planLaunch, then its command). */
export function buildLaunchCommand(config: AgentLaunchConfig, input: LaunchInput): LaunchCommand {
  return planLaunch(config, input).command(input.mcpConfig);
}

/**
 * After `--` the CLI still matches the first operand against its subcommand names and aliases
 * (`doctor`, `mcp`, `update`, `install`, `config`, `help`, ... and whatever a future version adds),
 * comparing the whole argument. Names are short words of letters, digits, `-`, `_`, `:` or `.`,
 * never starting with a dash; every other prompt (whitespace, a leading dash, quotes, any other
 * character, or longer than 64 characters) can never match and goes byte-exact. A word-like
 * prompt gets a trailing newline (not only today's names, which change between versions): the CLI
 * then takes it as the prompt. That newline is the one change Nexus makes to a prompt — the CLI
 * cannot take a bare subcommand name as a prompt on its command line (pinned by
 * agent/real-agent-prompts.docker.test.ts).
 */
export function guardSubcommand(prompt: string): string {
  return /^[A-Za-z0-9][A-Za-z0-9_:.-]{0,63}$/.test(prompt) ? `${prompt}\n` : prompt;
}

/** Operator-configured flags: never bypassPermissions, never a variadic flag left waiting for values. */
function checkExtraArgs(args: readonly string[]): void {
  args.forEach((arg, i) => {
    const [flag, value] = splitFlag(arg);
    if (
      BYPASS_FLAGS.includes(flag) ||
      (flag === '--permission-mode' && (value ?? args[i + 1]) === 'bypassPermissions')
    ) {
      throw new NexusError(
        'bad_request',
        "Agent arguments must not set bypassPermissions: make it the workspace's choice instead (its " +
          'bypassPermissions option), where Nexus shows that inbox messages to its sessions are held, not ' +
          'delivered.',
      );
    }
    if (arg === '--')
      throw new NexusError('bad_request', 'Agent arguments must not contain `--`: Nexus places it before the prompt.');
  });
  const last = args[args.length - 1];
  if (last !== undefined && VARIADIC_OPTIONS.includes(last)) {
    throw new NexusError(
      'bad_request',
      `Agent argument ${last} takes values but none follow it; write ${last}=<value>.`,
    );
  }
}

/** The invariant the tests pin: the prompt, when present, follows `--` and nothing variadic or optional-valued precedes that. */
function assertPromptPosition(argv: readonly string[]): void {
  const dashes = argv.indexOf('--');
  if (dashes === -1) return;
  if (dashes !== argv.length - 2)
    throw new NexusError('internal', 'launch: the prompt must be the last argument, right after `--`.');
}

function splitFlag(arg: string): [string, string | undefined] {
  const eq = arg.indexOf('=');
  return arg.startsWith('-') && eq > 0 ? [arg.slice(0, eq), arg.slice(eq + 1)] : [arg, undefined];
}
