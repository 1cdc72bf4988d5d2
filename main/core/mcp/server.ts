import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import { z } from 'zod';
import { allows, type OpName } from '../../../shared/contract';
import type { AuditLog } from '../audit';
import type { CoreConfig } from '../config';
import type { Dispatcher } from '../dispatch';
import { accessOf, actorOf, type CallContext, type Caller } from '../handlers';
import type { DelegatedCall } from './delegation/delegation-service';
import { delegatedScope } from './delegation/scope';
import { runTool, toolAccess, toolError, type ToolDefinition } from './tool';
import { tools } from './tools';
import { sessionMemoryOf, sessionsMemoryHolds } from '../sessions';

export const MCP_SERVER_NAME = 'nexus';

/** What an MCP server needs from core: the one way in, the audit log and the config (version, quota). */
export interface McpServerDeps {
  dispatcher: Dispatcher;
  audit: AuditLog;
  config: CoreConfig;
}

/** The tools a caller may see and call: filtered by the class the contract gives each tool's operations. */
export const toolsFor = (caller: Caller): ToolDefinition[] =>
  tools.filter((t) => allows(accessOf(caller), toolAccess(t)));

/**
 * What the SDK would build again for every request (stateless: one server per request), built once:
 * its JSON Schema validator (a fresh Ajv with every format per server, only ever used for
 * elicitation, which this server never sends) and each tool's input object around its shape.
 */
let validator: AjvJsonSchemaValidator | undefined;
const sharedValidator = (): AjvJsonSchemaValidator => (validator ??= new AjvJsonSchemaValidator());
const inputObjects = new WeakMap<ToolDefinition, z.ZodObject>();
const inputObjectOf = (tool: ToolDefinition): z.ZodObject => {
  let input = inputObjects.get(tool);
  if (!input) inputObjects.set(tool, (input = z.object(tool.input)));
  return input;
};

/**
 * An MCP server for one caller. Only the tools its class allows are registered (so tools/list is
 * filtered); the class of a call is checked by the gate (before any tool code) and by the
 * dispatcher, never here. Every tool call is audited once, as `mcp:<tool>` with its outcome and
 * duration: its operations carry the tool's name in their call context, so the dispatcher writes
 * no second row. A workspace's delegated credential (`fleet`) sees every tool (the dispatcher answers
 * one above its class with a typed `forbidden` the model can read), is rate-limited per
 * workspace, held to its own workspace unless widened, and audited with its calling session.
 */
export function createMcpServer(core: McpServerDeps, caller: Caller, fleet: DelegatedCall | null = null): McpServer {
  const server = new McpServer(
    { name: MCP_SERVER_NAME, title: 'Nexus Desktop', version: core.config.version },
    {
      capabilities: { tools: { listChanged: false } },
      jsonSchemaValidator: sharedValidator(),
      instructions:
        'Nexus runs coding-agent sessions (Claude Code) in Docker workspaces. Start with get_nexus_info, ' +
        'then list_workspaces / list_sessions. create_workspace and create_session return at once with ' +
        'status "creating": poll get_workspace / get_session.',
    },
  );
  const env = {
    quota: { ...core.config.quota, sessionsMemoryHolds: sessionsMemoryHolds(sessionMemoryOf(core.config)) },
  };
  const actor = actorOf(caller);
  const dispatch = (op: OpName, input: unknown, c: CallContext): Promise<unknown> => core.dispatcher.call(op, input, c);
  const scope = fleet ? delegatedScope(fleet, fleet.resolvers) : undefined;
  const detail = fleet
    ? fleet.sessionId
      ? `session:${fleet.sessionId}`
      : `workspace:${fleet.workspaceId}`
    : undefined;
  // A session sees every tool, so a call above its workspace's class is refused with a reason it can read.
  for (const tool of fleet ? tools : toolsFor(caller)) {
    const readOnly = toolAccess(tool) === 'read';
    server.registerTool(
      tool.name,
      {
        title: tool.title,
        description: tool.description,
        inputSchema: inputObjectOf(tool),
        outputSchema: tool.output,
        annotations: tool.annotations,
      },
      async (args: unknown) => {
        const started = performance.now();
        const limited = fleet?.take();
        const result =
          limited && !limited.ok
            ? toolError({
                code: 'rate_limited',
                message: `Too many Nexus calls from this workspace; try again in ${limited.retryAfterSeconds} s.`,
              })
            : await runTool(tool, args, { transport: 'mcp', caller, tool: tool.name, scope }, dispatch, env);
        const error = result._meta?.['nexus/error'] as { code?: string } | undefined;
        core.audit.record({
          actor,
          transport: 'mcp',
          operation: `mcp:${tool.name}`,
          outcome: error?.code ?? 'ok',
          durationMs: performance.now() - started,
          readOnly: !error && readOnly,
          ...(detail ? { detail } : {}),
        });
        return result;
      },
    );
  }
  return server;
}
