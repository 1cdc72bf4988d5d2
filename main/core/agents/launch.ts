import { NexusError } from '../../../shared/errors';

/** What every agent kind's launch has in common: the command a session's tmux window runs, and its checks. */

/** Linux refuses a single argv string of 128 KiB or more (MAX_ARG_STRLEN). */
export const MAX_PROMPT_BYTES = 131_071;

export interface LaunchCommand {
  argv: string[];
  /** Environment for the agent process (set on the tmux window). */
  env: Record<string, string>;
  /** `exec <argv>` quoted for POSIX sh: safe for any text, no pipe. */
  shellLine: string;
  /** Script lines before `shellLine` (the OAuth token's descriptor); nothing secret in them. */
  preludeLines: string[];
  /** The mode the agent starts in (bypassPermissions holds inbox messages). */
  permissionMode: string;
  /** Whether a one-word prompt was changed by the subcommand guard. */
  promptGuarded: boolean;
}

/**
 * A launch checked and ready but for its platform run: every check (the operator's agent arguments,
 * the prompt) is done here, once, before the session's row exists; `command` only assembles.
 */
export interface LaunchPlan {
  /** The command line, with the session's own `--mcp-config` file when its run has one. */
  command(mcpConfig?: string): LaunchCommand;
}

/**
 * The session's launch script, as the product writes it into the session's state dir and runs in its
 * tmux window: into the worktree, the agent's environment exported (nothing secret), the prelude
 * (the OAuth token's descriptor), then `exec` of the command. The real-CLI tests run exactly this.
 */
export function launchScript(worktree: string, cmd: LaunchCommand): string {
  return [
    '#!/bin/sh',
    `cd ${shellQuote(worktree)} || exit 1`,
    ...Object.entries(cmd.env).map(([k, v]) => `export ${k}=${shellQuote(v)}`),
    ...cmd.preludeLines,
    cmd.shellLine,
    '',
  ].join('\n');
}

/** POSIX sh single quotes: nothing inside is special; a quote is closed, escaped and reopened. */
export function shellQuote(arg: string): string {
  if (/^[A-Za-z0-9_@%+=:,./-]+$/.test(arg)) return arg;
  return `'${arg.replace(/'/g, `'\\''`)}'`;
}

export function checkPrompt(prompt: string): string {
  if (prompt.length === 0) throw new NexusError('bad_request', 'The initial message is empty.');
  if (prompt.includes('\0'))
    throw new NexusError(
      'bad_request',
      'The initial message contains a NUL character, which no command line can carry.',
    );
  if (Buffer.byteLength(prompt, 'utf8') > MAX_PROMPT_BYTES) {
    throw new NexusError(
      'bad_request',
      `The initial message is over ${MAX_PROMPT_BYTES} bytes, the limit for a launch argument; send the rest as a message.`,
    );
  }
  return prompt;
}
