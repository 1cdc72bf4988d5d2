import type { CallToolResult, ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';
import type { z } from 'zod';
import {
  accessLevels,
  operations,
  type Access,
  type OpInput,
  type OpName,
  type OpOutput,
  type Operations,
} from '../../../shared/contract';
import { NexusError, type WireError } from '../../../shared/errors';
import type { CallContext } from '../handlers';
import { announceInternal } from '../internal-answers';

/** Calls one contract operation through the dispatcher as the tool's caller (class-checked, parsed, redacted there). */
export type Call = <K extends OpName>(op: K, input: unknown) => Promise<OpOutput<K>>;

/**
 * One MCP tool: a zod input shape with descriptions, an output object schema, and a run function
 * that only ever goes through `call` — the same operations the UI uses. The tool's class is the
 * highest class among the operations it calls, taken from the contract.
 */
export interface ToolDefinition<S extends z.ZodRawShape = z.ZodRawShape, O extends z.ZodObject = z.ZodObject> {
  name: string;
  title: string;
  description: string;
  ops: readonly OpName[];
  input: S;
  output: O;
  annotations: ToolAnnotations;
  run(args: z.output<z.ZodObject<S>>, call: Call, env: ToolEnv): Promise<z.output<O>>;
  summarize(result: z.output<O>): string;
}

/** What a tool may know besides the operations: the configured limits. */
export interface ToolEnv {
  /** `sessionsMemoryHolds`: how many sessions a workspace container's memory holds (sessions/memory/memory-admission.ts). */
  quota: { maxWorkspaces: number; maxSessionsPerWorkspace: number; sessionsMemoryHolds: number };
}

export const defineTool = <S extends z.ZodRawShape, O extends z.ZodObject>(
  def: ToolDefinition<S, O>,
): ToolDefinition<S, O> => def;

/** `repoUrl` → `repo_url`: the MCP name of a contract field (MCP tools take snake_case arguments). */
type Snake<S extends string> = S extends `${infer C}${infer R}`
  ? `${C extends Lowercase<C> ? C : `_${Lowercase<C>}`}${Snake<R>}`
  : S;
export const mcpName = <S extends string>(field: S): Snake<S> =>
  field.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`) as Snake<S>;

/** Operations whose input is an object of fields (every one a tool can take its input from). */
type ObjectOp = { [K in OpName]: Operations[K]['input'] extends z.ZodObject ? K : never }[OpName];
type FieldsOf<K extends ObjectOp> = Operations[K]['input'] extends z.ZodObject<infer S> ? S : never;
type Field<K extends ObjectOp> = Extract<keyof FieldsOf<K>, string>;
type Snaked<S, F extends keyof S & string> = { [P in F as Snake<P>]: S[P] };

/** A tool's input taken from an operation's: the snake_case shape it publishes, and the way back. */
export interface ToolInput<K extends ObjectOp, F extends Field<K>> {
  /** The contract's own field schemas (with their `.describe()` text) under their MCP names. */
  shape: Snaked<FieldsOf<K>, F>;
  /** The operation's camelCase input from the tool's arguments; arguments left out stay out. */
  toOp(args: Record<string, unknown>): Pick<OpInput<K>, F & keyof OpInput<K>>;
}

/**
 * A tool's input from the contract, so every field is described once (in shared/contract): all of
 * `op`'s input fields, or those in `pick`, less those in `omit` (fields the MCP surface hides, such
 * as `fleet`). A field the MCP surface adds of its own goes beside `shape` in the tool.
 */
export function inputFrom<K extends ObjectOp, P extends Field<K> = Field<K>, O extends Field<K> = never>(
  op: K,
  select: { pick?: readonly P[]; omit?: readonly O[] } = {},
): ToolInput<K, Exclude<P, O>> {
  const all = (operations[op].input as z.ZodObject).shape;
  const fields = Object.keys(all).filter(
    (f) => (select.pick?.includes(f as P) ?? true) && !select.omit?.includes(f as O),
  );
  return {
    shape: Object.fromEntries(fields.map((f) => [mcpName(f), all[f]])) as ToolInput<K, Exclude<P, O>>['shape'],
    toOp: (args) =>
      Object.fromEntries(
        fields.flatMap((f) => (args[mcpName(f)] === undefined ? [] : [[f, args[mcpName(f)]]])),
      ) as ReturnType<ToolInput<K, Exclude<P, O>>['toOp']>,
  };
}

/** The class a tool needs: the highest of its operations' classes in the contract. */
export function toolAccess(tool: Pick<ToolDefinition, 'ops'>): Access {
  let index = 0;
  for (const op of tool.ops) index = Math.max(index, accessLevels.indexOf(operations[op].access));
  return accessLevels[index] ?? 'operator';
}

/** Runs a tool for a caller and shapes the MCP result: structured content plus a short summary, or a typed error. */
export async function runTool(
  tool: ToolDefinition,
  args: unknown,
  ctx: CallContext,
  dispatch: (op: OpName, input: unknown, ctx: CallContext) => Promise<unknown>,
  env: ToolEnv,
): Promise<CallToolResult> {
  const call = ((op: OpName, input: unknown) => dispatch(op, input, ctx)) as Call;
  try {
    const result = (await tool.run(args as never, call, env)) as Record<string, unknown>;
    return {
      content: [
        { type: 'text', text: tool.summarize(result as never) },
        { type: 'text', text: JSON.stringify(result) },
      ],
      structuredContent: result,
    };
  } catch (e) {
    if (e instanceof NexusError) return toolError(e.toWire());
    const wire: WireError = { code: 'internal', message: `Internal error in ${tool.name}.` };
    announceInternal({ operation: `tool:${tool.name}`, message: wire.message });
    return toolError(wire);
  }
}

/** A tool error a model can act on: `isError`, the code first in the text, and the code in `_meta`. */
export function toolError(error: WireError): CallToolResult {
  return {
    isError: true,
    content: [{ type: 'text', text: `[${error.code}] ${error.message}` }],
    _meta: { 'nexus/error': error },
  };
}
