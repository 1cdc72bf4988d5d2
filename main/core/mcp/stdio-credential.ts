import { createHash } from 'node:crypto';
import { resolve } from 'node:path';

/**
 * Where `nexus mcp-stdio` finds its token when NEXUS_TOKEN is not set: the OS keychain, under an
 * account tied to the data directory (so two Nexus installs keep two tokens).
 */
export const STDIO_KEYCHAIN_SERVICE = 'Nexus Desktop MCP';
export const stdioKeychainAccount = (dataDir: string): string =>
  `mcp-stdio:${createHash('sha256').update(resolve(dataDir)).digest('hex').slice(0, 16)}`;
