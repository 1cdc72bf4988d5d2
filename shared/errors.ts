import { z } from 'zod';

/** Every error that crosses a process boundary has this shape: a stable code and a sentence for people. */
export const errorCodes = [
  'bad_request',
  'unauthorized',
  'forbidden',
  'not_found',
  'conflict',
  'vault_locked',
  'vault_uninitialized',
  'docker_unavailable',
  'nats_unavailable',
  /** An SSH engine showed another host key than the pinned one (refused; nothing was sent to it). */
  'host_key_changed',
  'timeout',
  'rate_limited',
  'unavailable',
  'internal',
] as const;
export const ErrorCode = z.enum(errorCodes);
export type ErrorCode = z.infer<typeof ErrorCode>;

export const WireError = z.object({ code: ErrorCode, message: z.string() });
export type WireError = z.infer<typeof WireError>;

/** What every boundary (IPC, HTTP, NATS) carries back: a result or a typed error, never a stack trace. */
export type Reply<T> = { result: T } | { error: WireError };
/** The zod form of `Reply`, for a receiver that parses what arrives (the error branch first: `result` may be anything). */
export const replyOf = <T extends z.ZodType>(result: T) =>
  z.union([z.object({ error: WireError }), z.object({ result })]);

/** A typed error a handler throws on purpose; its message is safe to show to the operator. */
export class NexusError extends Error {
  readonly code: ErrorCode;
  constructor(code: ErrorCode, message: string) {
    super(message);
    this.name = 'NexusError';
    this.code = code;
  }
  toWire(): WireError {
    return { code: this.code, message: this.message };
  }
}

export const isNexusError = (e: unknown): e is NexusError => e instanceof NexusError;

/** The message of anything thrown: an Error's own, else its string form. */
export const errorMessage = (e: unknown): string => (e instanceof Error ? e.message : String(e));

/**
 * The one client-side error class: a `WireError` that came back over a boundary (IPC, HTTP), rebuilt
 * by the renderer, the preload and the CLI client so callers can react to its code (`vault_locked`, ...).
 */
export class RemoteError extends Error {
  readonly code: ErrorCode;
  constructor(wire: WireError) {
    super(wire.message);
    this.name = 'RemoteError';
    this.code = wire.code;
  }
  /** Whatever a transport rejected with: a wire-shaped error keeps its code, anything else is `internal`. */
  static from(e: unknown): RemoteError {
    if (e instanceof RemoteError) return e;
    const wire = WireError.safeParse(e);
    if (wire.success) return new RemoteError(wire.data);
    return new RemoteError({ code: 'internal', message: errorMessage(e) });
  }
}

/** HTTP status for each code, used by the host and the MCP gate. */
export const httpStatusOf: Record<ErrorCode, number> = {
  bad_request: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  vault_locked: 423,
  vault_uninitialized: 423,
  docker_unavailable: 503,
  nats_unavailable: 503,
  host_key_changed: 502,
  timeout: 504,
  rate_limited: 429,
  unavailable: 503,
  internal: 500,
};
