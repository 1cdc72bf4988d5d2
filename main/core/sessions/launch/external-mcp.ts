import { errorMessage } from '../../../../shared/errors';
import type { McpServerSpec } from '../../../../shared/contract/platform';
import type { Logger } from '../../log';

/** A stdio MCP server entry of the Claude `--mcp-config` `mcpServers` map. */
export interface McpStdioEntry {
  command: string;
  args: string[];
  env: Record<string, string>;
}

/** A workspace's external MCP servers as `--mcp-config` entries (absent: none). */
export type ExternalMcpOf = (workspaceId: string) => Promise<Record<string, McpStdioEntry>>;

export interface ExternalMcpDeps {
  /** The workspace agent's `mcpServers` (seed `mcp_servers`). */
  servers(workspaceId: string): McpServerSpec[];
  /** A vault secret's value by id or name (throws when locked or missing). */
  resolveSecret(ref: string): Promise<string>;
  /** Registers a resolved value with the redactor, so it never shows in a log, event or reply. */
  addSecret(value: string): void;
  /** nexus-mcp in the worker: runs a server behind a tool allow-list (`--filter`). */
  nexusMcpCommand: string;
  log: Logger;
}

/**
 * The agent's enabled external servers, written into the session's --mcp-config beside `nexus`
 * (the CLI starts them itself; their tools are `mcp__<name>__<tool>`). Env values naming a vault
 * secret are resolved here and reach only the server's process, through the 0600 config file in
 * the session's state dir (never docker inspect, the launch script or a log). A server whose
 * secret cannot be resolved is left out and logged: a bad MCP config never stops the session.
 */
export function externalMcpEntries(d: ExternalMcpDeps): ExternalMcpOf {
  return async (workspaceId) => {
    const entries: Record<string, McpStdioEntry> = {};
    for (const s of d.servers(workspaceId)) {
      if (s.disabled) continue;
      try {
        const env: Record<string, string> = {};
        for (const [k, v] of Object.entries(s.env)) {
          if (typeof v === 'string') env[k] = v;
          else {
            const value = await d.resolveSecret(v.vault);
            d.addSecret(value);
            env[k] = value;
          }
        }
        entries[s.name] =
          s.tools.length > 0
            ? { command: d.nexusMcpCommand, args: ['--filter', s.tools.join(','), '--', s.command, ...s.args], env }
            : { command: s.command, args: s.args, env };
      } catch (e) {
        d.log.warn('external MCP server left out of the session', {
          server: s.name,
          reason: errorMessage(e),
        });
      }
    }
    return entries;
  };
}
