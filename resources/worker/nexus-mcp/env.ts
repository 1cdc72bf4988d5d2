import { readFileSync } from 'node:fs';
import { z } from 'zod';

/**
 * nexus-mcp's configuration, from the environment the worker launcher sets:
 *   NEXUS_NATS_URL       nats://host:port of Core's NATS server
 *   NEXUS_NATS_USER      the run's NATS user (absent with an external, unauthenticated server)
 *   NEXUS_NATS_PASSWORD  the run's secret (core's managed server: its bearer user JWT), or
 *   NEXUS_NATS_PASSWORD_FILE  a file holding it (preferred: a tmpfs file, so the password is in
 *                        no container Env, command line or MCP config that `docker inspect` shows)
 *   NEXUS_RUN_ID         the run id; requests go to tools.invoke.<runId>
 *   NEXUS_INBOX_PREFIX   reply inbox prefix, _INBOX.<runId> (the only one the run may subscribe to)
 *   NEXUS_TOOL_TIMEOUT_MS  optional, default 30000
 *   NEXUS_CATALOG_WAIT_MS  optional, default 10000: how long the MCP handshake waits for Core's
 *                        catalogue (then it answers with no tools and offers them when Core answers)
 */
export const BridgeEnv = z.object({
  NEXUS_NATS_URL: z.string().min(1),
  NEXUS_NATS_USER: z.string().min(1).optional(),
  NEXUS_NATS_PASSWORD: z.string().min(1).optional(),
  NEXUS_NATS_PASSWORD_FILE: z.string().min(1).optional(),
  NEXUS_RUN_ID: z.string().regex(/^[A-Za-z0-9_-]{1,100}$/),
  NEXUS_INBOX_PREFIX: z.string().min(1).optional(),
  NEXUS_TOOL_TIMEOUT_MS: z.coerce.number().int().positive().default(30_000),
  NEXUS_CATALOG_WAIT_MS: z.coerce.number().int().positive().default(10_000),
});
export type BridgeEnv = z.infer<typeof BridgeEnv>;

export function readBridgeEnv(env: NodeJS.ProcessEnv): BridgeEnv {
  const parsed = BridgeEnv.safeParse(env);
  if (!parsed.success) {
    const names = [...new Set(parsed.error.issues.map((i) => i.path.join('.')))].join(', ');
    throw new Error(`nexus-mcp: missing or invalid environment: ${names}`);
  }
  const file = parsed.data.NEXUS_NATS_PASSWORD_FILE;
  if (file && !parsed.data.NEXUS_NATS_PASSWORD) {
    try {
      return { ...parsed.data, NEXUS_NATS_PASSWORD: readFileSync(file, 'utf8').trim() };
    } catch {
      throw new Error(`nexus-mcp: cannot read NEXUS_NATS_PASSWORD_FILE (${file}).`);
    }
  }
  return parsed.data;
}
