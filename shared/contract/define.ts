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

export interface Operation<I extends z.ZodType = z.ZodType, O extends z.ZodType = z.ZodType> {
  readonly input: I;
  readonly output: O;
  readonly access: Access;
  /** One line, shown in docs and as a hint in errors. */
  readonly summary: string;
}

export const operation = <I extends z.ZodType, O extends z.ZodType>(def: Operation<I, O>): Operation<I, O> => def;
