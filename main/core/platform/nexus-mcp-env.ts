import type { RunCredentials } from './platform-service';

/**
 * The environment nexus-mcp needs for one run (see resources/worker/nexus-mcp/env.ts). Pass
 * `passwordFile` (a tmpfs path inside the worker holding the password) to keep the password out
 * of every Env, command line and config that `docker inspect` or the MCP config would show.
 */
export function nexusMcpEnv(
  creds: RunCredentials,
  opts: { passwordFile?: string; natsUrl?: string } = {},
): Record<string, string> {
  const env: Record<string, string> = {
    NEXUS_NATS_URL: opts.natsUrl ?? creds.natsUrl,
    NEXUS_RUN_ID: creds.runId,
    NEXUS_INBOX_PREFIX: creds.inboxPrefix,
  };
  if (creds.user) env.NEXUS_NATS_USER = creds.user;
  if (opts.passwordFile) env.NEXUS_NATS_PASSWORD_FILE = opts.passwordFile;
  else if (creds.password) env.NEXUS_NATS_PASSWORD = creds.password;
  return env;
}
