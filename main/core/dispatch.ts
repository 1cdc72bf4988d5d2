import { randomUUID } from 'node:crypto';
import { allows, isOpName, operations, type Operation, type OpName, type OpOutput } from '../../shared/contract';
import { NexusError, type WireError } from '../../shared/errors';
import type { AuditLog } from './audit';
import { announceInternal } from './internal-answers';
import { accessOf, actorOf, type CallContext, type Handlers } from './handlers';
import type { Logger } from './log';
import type { Redactor } from './redact';
import { describeIssues } from './validation-message';

/**
 * The single entry point every transport (IPC, HTTP, MCP, CLI) uses: look the operation up,
 * check the caller's class (the one class check every caller passes), parse the input with the
 * contract's schema, run the handler (inside the call's scope, if it has one), shape the output
 * with the contract's schema, redact it, and write one audit row per call (for a call made for an
 * MCP tool that is the tool call's row; see `audits`).
 */
export class Dispatcher {
  /** What a scope calls to run the handler (always a promise, so a handler that throws is a rejection), one per operation. */
  private readonly runners = new Map<OpName, (input: unknown, ctx: CallContext) => Promise<unknown>>();

  constructor(
    private readonly handlers: Handlers,
    private readonly deps: { redactor: Redactor; log: Logger; audit: AuditLog },
  ) {}

  async call<K extends OpName>(name: K, rawInput: unknown, ctx: CallContext): Promise<OpOutput<K>>;
  async call(name: string, rawInput: unknown, ctx: CallContext): Promise<unknown>;
  async call(name: string, rawInput: unknown, ctx: CallContext): Promise<unknown> {
    const started = performance.now();
    const op = isOpName(name) ? operations[name] : undefined;
    let outcome = 'ok';
    try {
      if (!op || !isOpName(name)) throw new NexusError('not_found', `Unknown operation "${name}".`);
      const access = accessOf(ctx.caller);
      if (!allows(access, op.access)) {
        const what = ctx.tool ?? `"${name}"`;
        throw new NexusError('forbidden', `${what} needs a ${op.access} credential; this one is ${access}.`);
      }
      const parsed = op.input.safeParse(rawInput ?? {});
      if (!parsed.success)
        throw new NexusError('bad_request', `Invalid input for ${name}: ${describeIssues(parsed.error)}`);
      // No closure per call: the handler is called as it is, or through its operation's one runner in a scope;
      // a handler that answers at once (no promise) is shaped in the same turn.
      const answer = ctx.scope
        ? ctx.scope(name, parsed.data, ctx, this.runnerOf(name))
        : this.handlerOf(name)(parsed.data, ctx);
      return this.shape(op, isThenable(answer) ? await answer : answer);
    } catch (e) {
      const wire = this.toWire(e, name);
      outcome = wire.code;
      throw new NexusError(wire.code, wire.message);
    } finally {
      if (audits(op, ctx, outcome)) {
        this.deps.audit.record({
          actor: actorOf(ctx.caller),
          transport: ctx.transport,
          operation: name.slice(0, 100),
          outcome,
          durationMs: performance.now() - started,
          readOnly: outcome === 'ok' && op?.access === 'read',
        });
      }
    }
  }

  private handlerOf(name: OpName): (input: unknown, ctx: CallContext) => unknown {
    return this.handlers[name] as (input: unknown, ctx: CallContext) => unknown;
  }

  private runnerOf(name: OpName): (input: unknown, ctx: CallContext) => Promise<unknown> {
    let run = this.runners.get(name);
    if (!run) {
      const handler = this.handlerOf(name);
      run = async (input, c) => handler(input, c);
      this.runners.set(name, run);
    }
    return run;
  }

  /**
   * Parses the output with the contract and redacts all of it, except the single field an
   * operation declares with `revealsOnce` (a secret shown once, e.g. a new token), which is put
   * back as the handler made it. Only a top-level string can be revealed; nothing nested is.
   */
  private shape(op: Operation, result: unknown): unknown {
    const output = op.output.parse(result) as unknown;
    const field = op.revealsOnce;
    if (!field) return this.deps.redactor.value(output);
    if (
      typeof output !== 'object' ||
      output === null ||
      typeof (output as Record<string, unknown>)[field] !== 'string'
    ) {
      throw new Error(`revealsOnce field "${field}" is not a top-level string of the output`);
    }
    const { [field]: revealed, ...rest } = output as Record<string, unknown>;
    return { ...this.deps.redactor.value(rest), [field]: revealed };
  }

  /** Typed errors pass through (redacted); anything else becomes `internal` with a log reference. */
  toWire(e: unknown, operation: string): WireError {
    return toWireError(e, operation, this.deps);
  }
}

/**
 * The one mapping from a thrown value to the `WireError` every boundary sends (IPC, HTTP, MCP,
 * NATS): a `NexusError` keeps its code and its redacted message; anything else is logged and
 * becomes `internal` with a log reference, so no stack trace or secret leaves the process.
 */
export function toWireError(e: unknown, operation: string, deps: { redactor: Redactor; log: Logger }): WireError {
  const wire = wireErrorOf(e, operation, deps);
  if (wire.code === 'internal') announceInternal({ operation: operation.slice(0, 100), message: wire.message });
  return wire;
}

function wireErrorOf(e: unknown, operation: string, deps: { redactor: Redactor; log: Logger }): WireError {
  if (e instanceof NexusError) return { code: e.code, message: deps.redactor.text(e.message) };
  if (isDiskFull(e)) {
    deps.log.warn('disk full', { operation: operation.slice(0, 100) });
    return {
      code: 'unavailable',
      message: 'The disk holding the data directory is full: nothing was saved. Free some space and retry.',
    };
  }
  const ref = randomUUID().slice(0, 8);
  const name = operation.slice(0, 100);
  deps.log.error('operation failed', { operation: name, ref, error: e });
  return { code: 'internal', message: `Internal error in ${name} (log reference ${ref}).` };
}

/**
 * Whether the dispatcher writes this call's audit row: every token call, every change and every
 * failure, except a call made for an MCP tool (the tool call's row, written by the MCP server,
 * covers it) and an operation whose service wrote a richer row of its own.
 */
function audits(op: Operation | undefined, ctx: CallContext, outcome: string): boolean {
  if (ctx.tool !== undefined) return false;
  if (outcome === 'ok' && op?.audit === 'service') return false;
  return ctx.caller.kind === 'token' || (op !== undefined && op.access !== 'read') || outcome !== 'ok';
}

const isThenable = (v: unknown): v is PromiseLike<unknown> =>
  typeof v === 'object' && v !== null && typeof (v as { then?: unknown }).then === 'function';

/** SQLite's "database or disk is full" and the filesystem's ENOSPC: nothing was written. */
const isDiskFull = (e: unknown): boolean => {
  const code = (e as { code?: unknown } | null)?.code;
  return code === 'SQLITE_FULL' || code === 'ENOSPC';
};
