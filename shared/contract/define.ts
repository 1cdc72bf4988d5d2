import type { z } from 'zod';

/**
 * Credential classes, ordered: each one includes the ones before it. `operator` is the person at
 * the app (UI cookie, Electron IPC); MCP tokens carry at most `vault` and never reach operator-only
 * operations such as vault set-up, secrets or token management.
 */
export const accessLevels = ['read', 'write', 'vault', 'operator'] as const;
export type Access = (typeof accessLevels)[number];

export const allows = (held: Access, needed: Access): boolean =>
  accessLevels.indexOf(held) >= accessLevels.indexOf(needed);

/**
 * What a workspace's delegated credential (one not widened to all workspaces) may do with an operation
 * (docs/mcp.md, "Delegation"); the MCP call scope reads it, no list beside the contract does.
 */
export const delegatedReaches = [
  /** Reads Nexus as a whole (the fleet summary, what needs the operator). */
  'fleet-wide',
  /** Names one workspace by `workspace`: only its own. */
  'own-workspace',
  /** Names one session by `session`: only one of its own workspace's. */
  'own-session',
  /** The workspace list, cut to its own workspace. */
  'own-workspace-listed',
  /** The session list, of its own workspace only. */
  'own-sessions-listed',
  /** Not open to it. */
  'refused',
] as const;
export type DelegatedReach = (typeof delegatedReaches)[number];

/**
 * Who writes an operation's audit row: the dispatcher (one row per call), or the service itself, with what
 * only it knows (who decided which request, what was approved): then the dispatcher writes one only when the call fails.
 */
export type AuditBy = 'dispatcher' | 'service';

/** A top-level string field of an operation's output. */
type OutputField<O extends z.ZodType> =
  z.output<O> extends Record<string, unknown> ? Extract<keyof z.output<O>, string> : never;

export interface Operation<I extends z.ZodType = z.ZodType, O extends z.ZodType = z.ZodType> {
  readonly input: I;
  readonly output: O;
  readonly access: Access;
  /** What a narrowed delegated credential may do with it. */
  readonly delegated: DelegatedReach;
  /**
   * Whether a phone signed in on the public origin may call it (POST /api/rpc/<op> on the public Host); for any
   * other operation there is no route there (404). A phone sees what needs you, decides permission requests,
   * follows and messages sessions, moves tasks and answers the review queue; set-up stays on the local UI.
   */
  readonly phone: boolean;
  readonly audit: AuditBy;
  /** One line, shown in docs and as a hint in errors. */
  readonly summary: string;
  /**
   * The one output field the dispatcher hands back unredacted, for an operation that must show a
   * freshly made secret once (tokens.create). Everything else in the output is still redacted.
   */
  readonly revealsOnce?: OutputField<O>;
}

export const operation = <I extends z.ZodType, O extends z.ZodType>(def: Operation<I, O>): Operation<I, O> => def;
