import type { CallToolResult, ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';
import type { z } from 'zod';
import { accessLevels, operations, type Access, type OpName, type OpOutput } from '../../../shared/contract';
import { NexusError, type WireError } from '../../../shared/errors';
import type { CallContext } from '../handlers';

/** Calls one contract operation through the dispatcher as the tool's caller (so it is re-checked, redacted, audited). */
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
  quota: { maxWorkspaces: number; maxSessionsPerWorkspace: number };
}

export const defineTool = <S extends z.ZodRawShape, O extends z.ZodObject>(
  def: ToolDefinition<S, O>,
): ToolDefinition<S, O> => def;

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
    return toolError(
      e instanceof NexusError ? e.toWire() : { code: 'internal', message: `Internal error in ${tool.name}.` },
    );
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
