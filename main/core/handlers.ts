import type { Access, OpName, OpOutput, OpParsedInput } from '../../shared/contract';
import type { WorkspaceInfo } from './workspace-info';

export type Transport = 'ipc' | 'http' | 'mcp' | 'cli' | 'internal' | 'remote';

/** Who is calling: the operator at the app, or an MCP client holding a token of some class. */
export type Caller =
  { kind: 'operator' } | { kind: 'token'; tokenId: string; name: string; access: Exclude<Access, 'operator'> };

export interface CallContext {
  transport: Transport;
  caller: Caller;
  /** Aborted when the caller goes away (HTTP request closed, MCP cancel). */
  signal?: AbortSignal;
  /**
   * The MCP tool this call is made for. Its refusals name the tool, and the tool call's one audit
   * row (`mcp:<tool>`, written by the MCP server) stands for every operation the tool calls.
   */
  tool?: string;
  /** Holds the call to a narrower reach than its class (a delegated credential's own workspace); see `CallScope`. */
  scope?: CallScope;
  /** The workspace the scope already resolved from `input.workspace`: handlers hand it on instead of looking again. */
  workspace?: WorkspaceInfo;
}

/**
 * Runs around the handler, after the dispatcher's class check and the input's parse: it may
 * refuse the call, narrow its input, enrich its context (`workspace`) or cut its output.
 */
export type CallScope = (
  op: OpName,
  input: unknown,
  ctx: CallContext,
  run: (input: unknown, ctx: CallContext) => Promise<unknown>,
) => Promise<unknown>;

export const operatorContext = (transport: Transport): CallContext => ({ transport, caller: { kind: 'operator' } });

export const accessOf = (p: Caller): Access => (p.kind === 'operator' ? 'operator' : p.access);
export const actorOf = (p: Caller): string => (p.kind === 'operator' ? 'operator' : `token:${p.tokenId}`);

export type Handler<K extends OpName> = (
  input: OpParsedInput<K>,
  ctx: CallContext,
) => Promise<OpOutput<K>> | OpOutput<K>;
export type Handlers = { [K in OpName]: Handler<K> };

type Merged<T extends readonly unknown[]> = T extends readonly [infer H, ...infer R] ? H & Merged<R> : unknown;

/**
 * One handler map from each module's: an operation two modules both answer is a wiring error, so
 * it throws instead of letting the later map win silently. Assign the result to `Handlers` so an
 * operation no module answers fails the type check.
 */
export function mergeHandlers<const T extends readonly Partial<Handlers>[]>(...maps: T): Merged<T> {
  const merged: Record<string, unknown> = {};
  for (const map of maps) {
    for (const [op, handler] of Object.entries(map)) {
      if (op in merged) throw new Error(`Two handlers for operation "${op}": each operation has one module.`);
      merged[op] = handler;
    }
  }
  return merged as Merged<T>;
}
