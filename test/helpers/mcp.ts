import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { TokenClass } from '../../shared/contract';
import { operatorContext } from '../../main/core/handlers';
import { serve, type Running } from '../../main/serve';
import { repoRoot } from './core';
import { tempDir } from './temp-dir';

/** A real `nexus serve` (core + loopback host + /api/mcp) on a free port and a temp data dir. */
export async function startNexus(config: Parameters<typeof serve>[0]['config'] = {}): Promise<{ running: Running; dataDir: string; mcpUrl: string; stop(): Promise<void> }> {
  const dir = tempDir('nexus-mcp-test-');
  const running = await serve({ dataDir: dir.path, appRoot: repoRoot, port: 0, config: { version: 'test', ...config } });
  return {
    running,
    dataDir: dir.path,
    mcpUrl: `${running.host.url}/api/mcp`,
    stop: async () => {
      await running.stop();
      dir.remove();
    },
  };
}

/** Creates a token the way the UI does (tokens.create as the operator) and returns its secret. */
export async function mintToken(running: Running, cls: TokenClass, name = `test-${cls}`): Promise<{ id: string; secret: string }> {
  const { token, secret } = await running.core.dispatcher.call('tokens.create', { name, class: cls }, operatorContext('http'));
  return { id: token.id, secret };
}

/** The SDK's own client over Streamable HTTP with a bearer token. */
export async function connectClient(url: string, token: string): Promise<Client> {
  const client = new Client({ name: 'nexus-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
  return client;
}
