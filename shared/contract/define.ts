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

/** A top-level string field of an operation's output. */
type OutputField<O extends z.ZodType> =
  z.output<O> extends Record<string, unknown> ? Extract<keyof z.output<O>, string> : never;

export interface Operation<I extends z.ZodType = z.ZodType, O extends z.ZodType = z.ZodType> {
  readonly input: I;
  readonly output: O;
  readonly access: Access;
  /** One line, shown in docs and as a hint in errors. */
  readonly summary: string;
  /**
   * The one output field the dispatcher hands back unredacted, for an operation that must show a
   * freshly made secret once (tokens.create). Everything else in the output is still redacted.
   */
  readonly revealsOnce?: OutputField<O>;
}

export const operation = <I extends z.ZodType, O extends z.ZodType>(def: Operation<I, O>): Operation<I, O> => def;
