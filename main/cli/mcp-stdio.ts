import { errorMessage } from '../../shared/errors';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { isJSONRPCRequest, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { STDIO_KEYCHAIN_SERVICE, stdioKeychainAccount, stdioTokenFile, MCP_PATH } from '../core/mcp';
import { withTimeout, OsKeychain } from '../core/vault';
import { CliError, readServeFile } from './running-app';

/** How long the bridge waits for the OS keychain (a D-Bus call that can hang) before it gives up. */
const KEYCHAIN_WAIT_MS = 5_000;

/**
 * The token: NEXUS_TOKEN, else the one "Connect Claude Desktop" kept: its data-dir file first (written
 * where no keychain answered, and removed whenever the keychain took the token, so it is the newer),
 * then the OS keychain.
 */
async function findToken(dataDir: string, env: NodeJS.ProcessEnv): Promise<string> {
  if (env.NEXUS_TOKEN) return env.NEXUS_TOKEN;
  const filed = stdioTokenFile(dataDir).read();
  if (filed) return filed;
  const stored = await withTimeout(
    new OsKeychain().get(STDIO_KEYCHAIN_SERVICE, stdioKeychainAccount(dataDir)),
    KEYCHAIN_WAIT_MS,
  ).catch(() => null);
  if (stored) return stored;
  throw new CliError(
    'No MCP token: set NEXUS_TOKEN, or use Settings → Connect → "Connect Claude Desktop" to keep one ' +
      '(in the OS keychain, or without one in the data dir).',
  );
}

/**
 * `nexus mcp-stdio`: Claude Desktop starts only stdio servers, so this relays every JSON-RPC
 * message between stdin/stdout and the running app's /api/mcp (found through serve.json), adding
 * the bearer token. Nothing but JSON-RPC goes to stdout; diagnostics go to stderr.
 */
export async function mcpStdio(opts: {
  dataDir: string;
  url?: string;
  env: NodeJS.ProcessEnv;
  err: NodeJS.WritableStream;
}): Promise<void> {
  const base = opts.url ?? readServeFile(opts.dataDir)?.url;
  if (!base) throw new CliError(`Nexus is not running for ${opts.dataDir} (no serve.json): start the app first.`);
  const token = await findToken(opts.dataDir, opts.env);
  const endpoint = new URL(`${base.replace(/\/$/, '')}${MCP_PATH}`);

  const stdio = new StdioServerTransport();
  const http = new StreamableHTTPClientTransport(endpoint, {
    requestInit: { headers: { authorization: `Bearer ${token}` } },
  });
  let closing = false;
  const failRequest = (message: JSONRPCMessage, reason: string): void => {
    if (isJSONRPCRequest(message))
      void stdio.send({ jsonrpc: '2.0', id: message.id, error: { code: -32000, message: reason } });
  };

  http.onmessage = (message) => void stdio.send(message);
  http.onerror = (e) => opts.err.write(`nexus mcp-stdio: ${e.message}\n`);
  stdio.onmessage = (message) => {
    http.send(message).catch((e: unknown) => {
      const reason = errorMessage(e);
      opts.err.write(`nexus mcp-stdio: ${reason}\n`);
      const why = /401|nauthor/.test(reason) ? 'the MCP token was refused (expired or revoked?)' : reason;
      failRequest(message, `Nexus at ${endpoint.origin} did not answer: ${why}`);
    });
  };
  await new Promise<void>((resolve) => {
    const close = (): void => {
      if (closing) return;
      closing = true;
      void Promise.allSettled([http.close(), stdio.close()]).then(() => resolve());
    };
    stdio.onclose = close;
    process.stdin.once('end', close);
    void http.start().then(() => stdio.start());
  });
}
