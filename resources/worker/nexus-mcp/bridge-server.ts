import { McpServer, type RegisteredTool } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { mcpToolName, platformTools, toolNames, type ToolName, type ToolReply } from '../../../shared/platform-tools';

/** Sends one platform-tool call to Core and returns its reply. */
export type ForwardCall = (tool: ToolName, args: unknown) => Promise<ToolReply>;

export interface GatedBridge {
  server: McpServer;
  /** Offers exactly these tools (Core's catalogue for the run); the others leave tools/list (list_changed). */
  offer(tools: readonly string[]): void;
}

/**
 * An MCP server for the platform tools; every call is forwarded to Core. It offers none until
 * `offer` is called with the run's catalogue (the gate lives in Core, which re-checks every call).
 */
export function createGatedBridge(forward: ForwardCall, version = '0.1.0'): GatedBridge {
  const server = new McpServer({ name: 'nexus', version });
  const registered = new Map<ToolName, RegisteredTool>();
  for (const tool of toolNames) {
    const def = platformTools[tool];
    const t = server.registerTool(
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
    t.enabled = false;
    registered.set(tool, t);
  }
  // list_changed goes out only once the client has initialized (a notification in the middle of
  // the handshake is never sent), and once per change of the catalogue.
  let initialized = false;
  let pending = false;
  server.server.oninitialized = () => {
    initialized = true;
    if (pending) void server.server.sendToolListChanged().catch(() => undefined);
    pending = false;
  };
  return {
    server,
    offer(tools) {
      let changed = false;
      for (const [name, t] of registered) {
        const want = tools.includes(name);
        if (want !== t.enabled) {
          t.enabled = want;
          changed = true;
        }
      }
      if (!changed) return;
      if (initialized) void server.server.sendToolListChanged().catch(() => undefined);
      else pending = true;
    },
  };
}

/** An MCP server exposing every platform tool (no catalogue): what a caller without Core's gate sees. */
export function createBridgeServer(forward: ForwardCall, version = '0.1.0'): McpServer {
  const bridge = createGatedBridge(forward, version);
  bridge.offer(toolNames);
  return bridge.server;
}
