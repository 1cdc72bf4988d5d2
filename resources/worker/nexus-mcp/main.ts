/**
 * nexus-mcp: the worker-side stdio MCP server that gives the agent CLI Nexus's platform tools.
 * Each call is forwarded over NATS to Core on tools.invoke.<runId> with the run's own credentials;
 * Core re-checks it against the stored agent record. Configuration: see env.ts.
 */
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { connect } from '@nats-io/transport-node';
import { ToolReply, subjects } from '../../../shared/platform-tools';
import { createBridgeServer } from './bridge-server';
import { readBridgeEnv } from './env';
import { requestsThatReconnect } from './request';

async function main(): Promise<void> {
  const env = readBridgeEnv(process.env);
  const nc = await connect({
    servers: env.NEXUS_NATS_URL,
    ...(env.NEXUS_NATS_USER ? { user: env.NEXUS_NATS_USER, pass: env.NEXUS_NATS_PASSWORD ?? '' } : {}),
    // The run may subscribe only under its own inbox prefix; the default _INBOX would be refused.
    inboxPrefix: env.NEXUS_INBOX_PREFIX ?? subjects.inboxPrefixFor(env.NEXUS_RUN_ID),
    name: `nexus-mcp-${env.NEXUS_RUN_ID}`,
    // Core may be restarted (or crash) under a running agent: its server comes back on the same address.
    maxReconnectAttempts: -1,
  });
  const subject = subjects.toolsFor(env.NEXUS_RUN_ID);
  const request = requestsThatReconnect(nc, env.NEXUS_TOOL_TIMEOUT_MS);
  const server = createBridgeServer(async (tool, args) => {
    const msg = await request(subject, JSON.stringify({ tool, args }));
    return ToolReply.parse(msg.json());
  });
  const shutdown = async (): Promise<void> => {
    await server.close().catch(() => undefined);
    await nc.close().catch(() => undefined);
    process.exit(0);
  };
  process.stdin.on('close', () => void shutdown());
  process.on('SIGTERM', () => void shutdown());
  await server.connect(new StdioServerTransport());
}

main().catch((e: unknown) => {
  // stdout carries JSON-RPC only; diagnostics go to stderr.
  process.stderr.write(`${e instanceof Error ? e.message : String(e)}\n`);
  process.exit(1);
});
