import { z } from 'zod';
import { operation } from './define';
import { TokenClass, TokenDays, TokenInfo } from './tokens';

/** How an MCP client reaches this app: the endpoint, the Claude Code line, the Claude Desktop entry. */
export const ConnectInfo = z.object({
  /** Streamable HTTP endpoint, null until the host listens. */
  mcpUrl: z.string().nullable(),
  /** `claude mcp add --transport http …` with a placeholder where the token goes. */
  claudeCodeCommand: z.string().nullable(),
  claudeDesktop: z.object({
    configPath: z.string(),
    /** Whether the config holds our server entry. */
    connected: z.boolean(),
    serverName: z.string(),
  }),
  /** The stdio bridge Claude Desktop starts. */
  stdioCommand: z.object({ command: z.string(), args: z.array(z.string()) }),
});
export type ConnectInfo = z.infer<typeof ConnectInfo>;

export const connectOperations = {
  'connect.info': operation({
    summary: 'The MCP endpoint, the `claude mcp add` line for Claude Code and the Claude Desktop state.',
    access: 'operator',
    delegated: 'refused',
    phone: false,
    audit: 'dispatcher',
    input: z.object({}).strict(),
    output: ConnectInfo,
  }),
  'connect.claudeDesktop': operation({
    summary:
      'Connect Claude Desktop: keep a token in the OS keychain (a 0600 data-dir file without one) ' +
      "and write Nexus's entry in its config (with a backup).",
    access: 'operator',
    delegated: 'refused',
    phone: false,
    audit: 'dispatcher',
    input: z
      .object({
        class: TokenClass.default('write').describe('What Claude Desktop may do'),
        expiresInDays: TokenDays.optional(),
      })
      .strict(),
    output: z.object({
      configPath: z.string(),
      backupPath: z.string().nullable(),
      /** False when the config already held exactly this entry. */
      changed: z.boolean(),
      token: TokenInfo,
      /** True when a fresh token was made (the previous one was missing, expired, revoked or of another class). */
      newToken: z.boolean(),
    }),
  }),
};
