import type { SecretKind } from '../../../shared/contract';
import { NexusError } from '../../../shared/errors';

/**
 * How the agent's credential reaches the CLI in a worker without ever entering docker inspect, the
 * container's Env/Cmd/labels, a process's arguments or environment, logs, events or the pane. At
 * workspace create and start (the two operations that hold the data key) the value goes on stdin to
 * a 0600 file on the /run/nexus tmpfs (memory only, gone when the container stops). Then, measured on
 * 2.1.332 against the model stand-in, each reaches the first turn with no prompt:
 *  - an Anthropic API key is read by the settings' `apiKeyHelper` (`cat <file>`); it never enters an
 *    environment, and needs no "use this key?" approval (that dialog is only for ANTHROPIC_API_KEY);
 *  - a Claude OAuth token (`claude setup-token`) is read from an inherited file descriptor: the launch
 *    script opens the file on fd 3 and sets CLAUDE_CODE_OAUTH_TOKEN_FILE_DESCRIPTOR=3. The CLI removes
 *    that variable from what its tools see, and the token is in no tool's environment (measured).
 * The agent itself runs as the file's owner, so it could read the file: the container is the boundary.
 */
export const AGENT_API_KEY_FILE = '/run/nexus/agent-api-key';
export const AGENT_OAUTH_TOKEN_FILE = '/run/nexus/agent-oauth-token';
/**
 * Codex's credential (an OpenAI API key), beside Claude's: a Codex session's launch script signs in with
 * `codex login --with-api-key < <file>`, which writes $CODEX_HOME/auth.json (0600).
 */
export const CODEX_OPENAI_KEY_FILE = '/run/nexus/openai-api-key';
const OAUTH_FD = 3;

export type AgentCredentialKind = Extract<SecretKind, 'anthropic_api_key' | 'claude_oauth_token'>;
export const AGENT_CREDENTIAL_KINDS: readonly AgentCredentialKind[] = ['anthropic_api_key', 'claude_oauth_token'];
export const isAgentCredentialKind = (k: string): k is AgentCredentialKind =>
  (AGENT_CREDENTIAL_KINDS as readonly string[]).includes(k);

/** The `apiKeyHelper` the seeded settings carry while an API key is injected (see first-run.ts). */
export const API_KEY_HELPER = `cat ${AGENT_API_KEY_FILE}`;

/**
 * The docker exec that puts a credential into a workspace container (or clears it when null):
 * one file written atomically 0600, the other kind's file removed. The value travels on stdin only.
 */
export function credentialInjection(credential: { kind: AgentCredentialKind; value: string } | null): {
  cmd: string[];
  stdin: string;
} {
  const value = credential?.value.trim() ?? '';
  if (credential && (!value || /[\r\n\0]/.test(value)))
    throw new NexusError('bad_request', 'The agent credential must be one non-empty line.');
  const [write, remove] =
    credential?.kind === 'claude_oauth_token'
      ? [AGENT_OAUTH_TOKEN_FILE, AGENT_API_KEY_FILE]
      : [AGENT_API_KEY_FILE, AGENT_OAUTH_TOKEN_FILE];
  const script = credential
    ? 'umask 077 && rm -f -- "$3" && cat > "$1.tmp" && chmod 600 "$1.tmp" && mv -f "$1.tmp" "$1"'
    : 'rm -f -- "$1" "$3"';
  return { cmd: ['sh', '-c', script, 'sh', write, '-', remove], stdin: value };
}

/**
 * Lines for a session's launch script, before `exec claude`: with an OAuth token file present, open it
 * on the descriptor the CLI reads. Nothing secret is in these lines; the file stays where it is.
 */
export function credentialLaunchLines(): string[] {
  return [
    `if [ -r ${AGENT_OAUTH_TOKEN_FILE} ]; then exec ${OAUTH_FD}< ${AGENT_OAUTH_TOKEN_FILE}; export CLAUDE_CODE_OAUTH_TOKEN_FILE_DESCRIPTOR=${OAUTH_FD}; fi`,
  ];
}

/** A shell test, true in the container when some agent credential is injected. */
export const HAS_CREDENTIAL_TEST = `[ -s ${AGENT_API_KEY_FILE} ] || [ -s ${AGENT_OAUTH_TOKEN_FILE} ]`;

/**
 * Adds Codex's OpenAI API key to a credential injection (the same exec, one file more): the key is the first line
 * of stdin, read by the shell's `read` builtin and written 0600 to CODEX_OPENAI_KEY_FILE, the rest of stdin is
 * the Claude credential as before. Without a key the injection is unchanged (the tmpfs file goes with the container).
 */
export function withCodexKey(
  injection: { cmd: string[]; stdin: string },
  key: string | null,
): {
  cmd: string[];
  stdin: string;
} {
  const value = key?.trim() ?? '';
  if (key === null) return injection;
  if (!value || /[\r\n\0]/.test(value))
    throw new NexusError('bad_request', 'The OpenAI API key must be one non-empty line.');
  const [sh, c, inner, ...args] = injection.cmd;
  if (sh !== 'sh' || c !== '-c' || inner === undefined)
    throw new NexusError('internal', 'unexpected credential injection');
  const script =
    `umask 077 && IFS= read -r k && printf '%s' "$k" > "$NEXUS_CODEX_KEY.tmp" && chmod 600 "$NEXUS_CODEX_KEY.tmp" && ` +
    `mv -f "$NEXUS_CODEX_KEY.tmp" "$NEXUS_CODEX_KEY" && unset k && ${inner}`;
  return {
    cmd: ['env', `NEXUS_CODEX_KEY=${CODEX_OPENAI_KEY_FILE}`, 'sh', '-c', script, ...args],
    stdin: `${value}\n${injection.stdin}`,
  };
}
