/**
 * The resident nexus-mcp (one per workspace container, serving every Claude Code session in it over
 * Streamable HTTP on 127.0.0.1; resources/worker/nexus-mcp/resident-server.ts) and what core writes
 * for it: each session's run file in its own state dir, and the session's MCP config entry.
 */
import { z } from 'zod';

/** The run file, `<stateDir>/<sessionId>/mcp-run.json` (0600, written with the session's launch). */
export const RESIDENT_RUN_FILE = 'mcp-run.json';
/** The MCP endpoint's path on the resident server. */
export const RESIDENT_MCP_PATH = '/mcp';
/** The header naming the session (its bearer is checked against that session's run file only). */
export const RESIDENT_SESSION_HEADER = 'x-nexus-session';
/** 32 random bytes, base64url: the per-session bearer. */
export const RESIDENT_BEARER = /^[A-Za-z0-9_-]{43}$/;
export const SESSION_ID = /^[A-Za-z0-9_-]{1,100}$/;

/**
 * One session's run as the resident server needs it: its NATS identity (the password stays in the
 * session's own `nats-password` file beside it) and the SHA-256 of its bearer (the bearer itself is
 * only in the session's MCP config).
 */
export const ResidentRunFile = z.object({
  runId: z.string().regex(SESSION_ID),
  natsUrl: z.string().min(1).max(2000),
  user: z.string().min(1).max(200).optional(),
  inboxPrefix: z.string().min(1).max(300),
  /** Whether `nats-password` beside it holds the run's secret (an external unauthenticated server: none). */
  password: z.boolean(),
  bearerSha256: z.string().regex(/^[0-9a-f]{64}$/),
});
export type ResidentRunFile = z.infer<typeof ResidentRunFile>;
