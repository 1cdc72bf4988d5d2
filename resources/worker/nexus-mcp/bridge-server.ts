import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { platformTools, toolNames, type ToolName, type ToolReply } from '../../../shared/platform-tools';

/** Sends one platform-tool call to Core and returns its reply. */
export type ForwardCall = (tool: ToolName, args: unknown) => Promise<ToolReply>;

/**
 * MCP tool names use `_` instead of `.` (`memory.search` → `memory_search`): model APIs accept
 * only [A-Za-z0-9_-] in tool names, and Claude Code prefixes them as mcp__nexus__<name>.
 */
export const mcpToolName = (tool: ToolName): string => tool.replace('.', '_');

/** An MCP server exposing exactly the platform tools; every call is forwarded to Core. */
export function createBridgeServer(forward: ForwardCall, version = '0.1.0'): McpServer {
  const server = new McpServer({ name: 'nexus', version });
  for (const tool of toolNames) {
    const def = platformTools[tool];
    server.registerTool(
      mcpToolName(tool),
      { description: def.description, inputSchema: def.args.shape },
      async (args: Record<string, unknown>): Promise<CallToolResult> => {
        try {
          const reply = await forward(tool, args);
          if ('result' in reply) return { content: [{ type: 'text', text: JSON.stringify(reply.result) }] };
          return { isError: true, content: [{ type: 'text', text: `${reply.error.code}: ${reply.error.message}` }] };
        } catch (e) {
          return {
            isError: true,
            content: [{ type: 'text', text: `unavailable: Nexus Core did not answer (${(e as Error).message}).` }],
          };
        }
      },
    );
  }
  return server;
}
