import { request } from 'node:http';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { TokenClass } from '../../shared/contract';
import { operatorContext } from '../../main/core/handlers';
import { serve, type Running } from '../../main/serve';
import { closeCoreDb, repoRoot } from './core';
import { removeOwnedBy } from './docker';
import { tempDir } from './temp-dir';

/** A real `nexus serve` (core + loopback host + /api/mcp) on a free port and a temp data dir, its vault set up. */
export async function startNexus(
  config: Parameters<typeof serve>[0]['config'] = {},
): Promise<{ running: Running; dataDir: string; mcpUrl: string; stop(): Promise<void> }> {
  const dir = tempDir('nexus-mcp-test-');
  const running = await serve({
    dataDir: dir.path,
    appRoot: repoRoot,
    port: 0,
    config: { version: 'test', ...config },
  });
  // A vault-class token is a machine principal of the vault, so the vault must exist (real keychain).
  await running.core.dispatcher.call('vault.init', {}, operatorContext('http'));
  return {
    running,
    dataDir: dir.path,
    mcpUrl: `${running.host.url}/api/mcp`,
    stop: async () => {
      closeCoreDb(running.core);
      await running.stop();
      await removeOwnedBy(dir.path);
      dir.remove();
    },
  };
}

/** Creates a token the way the UI does (tokens.create as the operator) and returns its secret. */
export async function mintToken(
  running: Running,
  cls: TokenClass,
  name = `test-${cls}`,
): Promise<{ id: string; secret: string }> {
  const { token, secret } = await running.core.dispatcher.call(
    'tokens.create',
    { name, class: cls },
    operatorContext('http'),
  );
  return { id: token.id, secret };
}

/** The SDK's own client over Streamable HTTP with a bearer token. */
export async function connectClient(url: string, token: string): Promise<Client> {
  const client = new Client({ name: 'nexus-test', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { authorization: `Bearer ${token}` } } }),
  );
  return client;
}

export interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

/**
 * One HTTP request with the path sent byte for byte (fetch would normalise `/api/./mcp` and friends),
 * to 127.0.0.1 unless `address` names another (the worker listener's gateway).
 */
export function rawRequest(
  port: number,
  opts: { method?: string; path: string; headers?: Record<string, string>; body?: string; address?: string },
): Promise<RawResponse> {
  const address = opts.address ?? '127.0.0.1';
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: address,
        port,
        method: opts.method ?? 'POST',
        path: opts.path,
        headers: {
          host: `${address}:${port}`,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          ...opts.headers,
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') }),
        );
      },
    );
    req.on('error', reject);
    req.end(opts.body);
  });
}

/** A JSON-RPC tools/call body. */
export const toolCall = (name: string, args: Record<string, unknown>, id = 1): string =>
  JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } });

/** Arguments that pass each tool's input schema. */
export const sampleArgs: Record<string, Record<string, unknown>> = {
  list_workspaces: {},
  get_workspace: { workspace: 'alpha' },
  // An image the engine lacks: refused before any row or container is made.
  create_workspace: { name: 'alpha', repo_url: '/tmp/nowhere.git', image: 'nexus-mcp-test-absent:none' },
  start_workspace: { workspace: 'alpha' },
  stop_workspace: { workspace: 'alpha' },
  delete_workspace: { workspace: 'alpha' },
  list_sessions: {},
  get_session: { session: 'alpha/one' },
  get_session_diff: { session: 'alpha/one', limit: 10 },
  push_session: { session: 'alpha/one' },
  create_session: { workspace: 'alpha', name: 'one', initial_message: 'hello' },
  delete_session: { session: 'alpha/one' },
  send_message: { session: 'alpha/one', text: 'hello' },
  set_workspace_tracker: { workspace: 'alpha', tracker: null },
  link_task_to_issue: { task_id: 'no-such-task', issue: 1 },
  list_rules: {},
  set_rule: { scope: 'global', action: 'allow', tool: 'shell', pattern: 'npm test' },
  get_nexus_info: {},
};
