import type { SecretKind } from '../../../../shared/contract';
import type { AgentCredentialSpec } from '../driver';

/**
 * Claude Code's sign-in. The operator's Anthropic API key or Claude OAuth token stays in core: the model gateway
 * (main/core/gateway) signs each request with it. In the container the CLI holds only its session's gateway
 * credential, which the settings' `apiKeyHelper` reads from the session's run file (measured on 2.1.332: a key
 * from `apiKeyHelper` needs no "use this key?" approval, unlike ANTHROPIC_API_KEY; the helper runs under a shell with
 * the CLI's environment, so it finds the file through NEXUS_GATEWAY_KEY_FILE).
 */
export const GATEWAY_KEY_HELPER = 'cat "$NEXUS_GATEWAY_KEY_FILE"';

/** Where versions before the gateway put the key in the container's tmpfs: removed at each workspace start. */
export const AGENT_API_KEY_FILE = '/run/nexus/agent-api-key';
export const AGENT_OAUTH_TOKEN_FILE = '/run/nexus/agent-oauth-token';

export const claudeCredential: AgentCredentialSpec = {
  secretKinds: [
    { kind: 'anthropic_api_key', label: 'Anthropic API key' },
    { kind: 'claude_oauth_token', label: 'Claude OAuth token (from claude setup-token)' },
  ],
  describe: 'an Anthropic API key or a Claude OAuth token (from claude setup-token)',
  fileFor: (kind: SecretKind) => (kind === 'claude_oauth_token' ? AGENT_OAUTH_TOKEN_FILE : AGENT_API_KEY_FILE),
  files: [AGENT_API_KEY_FILE, AGENT_OAUTH_TOKEN_FILE],
};

/**
 * The real credential as Anthropic's headers: an API key as `x-api-key`; an OAuth token as a Bearer with the OAuth
 * beta added to the betas the CLI asked for (what the CLI sends itself when it holds the token; not verifiable here,
 * where no request reaches Anthropic: docs/gateway.md).
 */
export function anthropicHeaders(
  kind: SecretKind,
  value: string,
  incoming: Record<string, string | string[] | undefined>,
): Record<string, string> {
  if (kind !== 'claude_oauth_token') return { 'x-api-key': value };
  const betas = String(incoming['anthropic-beta'] ?? '')
    .split(',')
    .map((b) => b.trim())
    .filter(Boolean);
  if (!betas.includes(OAUTH_BETA)) betas.push(OAUTH_BETA);
  return { authorization: `Bearer ${value}`, 'anthropic-beta': betas.join(',') };
}

const OAUTH_BETA = 'oauth-2025-04-20';
