import type { SessionGateway } from '../driver';
import { AGENT_CLI_ENV } from './cli';

/**
 * What a session's launch script exports for the real CLI (nothing secret): auto-update off; and its model endpoint,
 * Nexus's gateway for this kind, with the file the settings' `apiKeyHelper` reads the session's gateway credential
 * from (first-run.ts) and the CLI's other traffic off, so it tries no other host. The real key stays in core.
 */
export function agentLaunchEnv(gateway: SessionGateway | null): Record<string, string> {
  return {
    ...AGENT_CLI_ENV,
    ...(gateway
      ? {
          ANTHROPIC_BASE_URL: gateway.url,
          NEXUS_GATEWAY_KEY_FILE: gateway.keyFile,
          CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
          // The gateway is core's: a core restart refuses connections for seconds, and the CLI's request must be
          // retried (with its own backoff) until the restarted core takes it. 15 is the most 2.1.332 takes (more is
          // clamped to 15, with a warning); its backoff, capped at 32 s, makes that ~5 minutes of retries (measured:
          // attempt 12 of 15 at 240 s after the first refusal).
          CLAUDE_CODE_MAX_RETRIES: '15',
        }
      : {}),
  };
}
