import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { allows } from '../../../shared/contract';
import type { AuditLog } from '../audit/audit-log';
import type { CoreConfig } from '../config';
import type { Dispatcher } from '../dispatch';
import { accessOf, actorOf, type Caller } from '../handlers';
import { runTool, toolAccess, toolError, type ToolDefinition } from './tool';
import { tools } from './tools';

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
 * An MCP server for one caller. Only the tools its class allows are registered (so tools/list is
 * filtered), each call re-checks the class here, and the dispatcher checks it once more.
 * Every tool call is audited as `mcp:<tool>` with its outcome and duration.
 */
export function createMcpServer(core: McpServerDeps, caller: Caller): McpServer {
  const server = new McpServer(
    { name: MCP_SERVER_NAME, title: 'Nexus Desktop', version: core.config.version },
    {
      capabilities: { tools: { listChanged: false } },
      instructions:
        'Nexus runs coding-agent sessions (Claude Code) in Docker workspaces. Start with get_nexus_info, then list_workspaces / list_sessions. create_workspace and create_session return at once with status "creating": poll get_workspace / get_session.',
    },
  );
  const ctx = { transport: 'mcp' as const, caller };
  const env = { quota: core.config.quota };
  const actor = actorOf(caller);
  for (const tool of toolsFor(caller)) {
    server.registerTool(
      tool.name,
      {
        title: tool.title,
        description: tool.description,
        inputSchema: tool.input,
        outputSchema: tool.output,
        annotations: tool.annotations,
      },
      async (args: unknown) => {
        const started = performance.now();
        const result = allows(accessOf(caller), toolAccess(tool))
          ? await runTool(tool, args, ctx, (op, input, c) => core.dispatcher.call(op, input, c), env)
          : toolError({ code: 'forbidden', message: `${tool.name} needs a ${toolAccess(tool)} token.` });
        const error = result._meta?.['nexus/error'] as { code?: string } | undefined;
        core.audit.record({
          actor,
          transport: 'mcp',
          operation: `mcp:${tool.name}`,
          outcome: error?.code ?? 'ok',
          durationMs: performance.now() - started,
        });
        return result;
      },
    );
  }
  return server;
}
