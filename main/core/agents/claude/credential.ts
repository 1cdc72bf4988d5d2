import type { SecretKind } from '../../../../shared/contract';
import type { AgentCredentialSpec } from '../driver';

/**
 * Claude Code's sign-in, from the /run/nexus tmpfs (agents/credential.ts writes it). Measured on 2.1.332 against the
 * model stand-in, each reaches the first turn with no prompt:
 *  - an Anthropic API key is read by the settings' `apiKeyHelper` (`cat <file>`); it never enters an environment,
 *    and needs no "use this key?" approval (that dialog is only for ANTHROPIC_API_KEY);
 *  - a Claude OAuth token (`claude setup-token`) is read from an inherited file descriptor: the launch script opens
 *    the file on fd 3 and sets CLAUDE_CODE_OAUTH_TOKEN_FILE_DESCRIPTOR=3. The CLI removes that variable from what
 *    its tools see, and the token is in no tool's environment (measured).
 */
export const AGENT_API_KEY_FILE = '/run/nexus/agent-api-key';
export const AGENT_OAUTH_TOKEN_FILE = '/run/nexus/agent-oauth-token';
const OAUTH_FD = 3;

export const claudeCredential: AgentCredentialSpec = {
  secretKinds: ['anthropic_api_key', 'claude_oauth_token'],
  describe: 'an Anthropic API key or a Claude OAuth token (from claude setup-token)',
  fileFor: (kind: SecretKind) => (kind === 'claude_oauth_token' ? AGENT_OAUTH_TOKEN_FILE : AGENT_API_KEY_FILE),
  files: [AGENT_API_KEY_FILE, AGENT_OAUTH_TOKEN_FILE],
};

/** The `apiKeyHelper` the seeded settings carry while an API key is injected (see first-run.ts). */
export const API_KEY_HELPER = `cat ${AGENT_API_KEY_FILE}`;

/**
 * Lines for a session's launch script, before `exec claude`: with an OAuth token file present, open it on the
 * descriptor the CLI reads. Nothing secret is in these lines; the file stays where it is.
 */
export function credentialLaunchLines(): string[] {
  return [
    `if [ -r ${AGENT_OAUTH_TOKEN_FILE} ]; then exec ${OAUTH_FD}< ${AGENT_OAUTH_TOKEN_FILE}; export CLAUDE_CODE_OAUTH_TOKEN_FILE_DESCRIPTOR=${OAUTH_FD}; fi`,
  ];
}

/** A shell test, true in the container when some Claude credential is injected. */
export const HAS_CREDENTIAL_TEST = `[ -s ${AGENT_API_KEY_FILE} ] || [ -s ${AGENT_OAUTH_TOKEN_FILE} ]`;
