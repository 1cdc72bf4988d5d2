import { AGENT_CLI_ENV } from './cli';
import { credentialLaunchLines } from './credential';

/**
 * What a session's launch script adds for the real CLI: its environment (auto-update off; the model
 * endpoint when NEXUS_AGENT_BASE_URL is set, with the CLI's other traffic off so it tries no other
 * host) and the lines that hand it the OAuth token's descriptor. Nothing secret is in either.
 */
export function agentLaunchEnv(opts: { baseUrl?: string | undefined }): Record<string, string> {
  return {
    ...AGENT_CLI_ENV,
    ...(opts.baseUrl ? { ANTHROPIC_BASE_URL: opts.baseUrl, CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1' } : {}),
  };
}

export const agentLaunchLines = (): string[] => credentialLaunchLines();
