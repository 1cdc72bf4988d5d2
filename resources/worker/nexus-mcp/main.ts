/**
 * nexus-mcp: the worker-side stdio MCP server that gives the agent CLI Nexus's platform tools.
 * Each call is forwarded over NATS to Core on tools.invoke.<runId> with the run's own credentials;
 * Core re-checks it against the stored agent record. Its tools/list is Core's catalogue for the run
 * (catalog.ts). Configuration: see env.ts.
 *
 * Self-gating: it serves MCP even when NATS is not reachable at start (offering no tools, so the
 * agent works without them), keeps connecting without limit, and offers the catalogue once Core
 * answers. Core may be restarted (or crash) under a running agent: its server comes back on the
 * same address and nexus-mcp reconnects there, without restarting the agent.
 *
 * `nexus-mcp --filter …` instead runs an external MCP server behind a tool allow-list (filter-proxy.ts).
 *
 * Started from a V8 startup snapshot (docs/performance.md, "Nexus's own CPU per session start"): the
 * worker image builds one from this bundle (`node --snapshot-blob nexus-mcp.blob --build-snapshot
 * nexus-mcp.cjs`, resources/worker/rootfs/opt/nexus/setup.sh), so a session's nexus-mcp starts with
 * its modules already evaluated (zod schemas, the SDK, the NATS client) instead of evaluating them
 * again: about half its start's CPU. Building one runs this file up to here and nothing else: no
 * environment is read, no id or secret is drawn (each start draws its own), no socket is opened.
 */
import { startupSnapshot } from 'node:v8';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { connect, jwtAuthenticator, type NatsConnection } from '@nats-io/transport-node';
import { isUserJwt } from '../nats-credential';
import { ToolReply, subjects } from '../../../shared/platform-tools';
import { createGatedBridge } from './bridge-server';
import { followCatalog } from './catalog';
import { readBridgeEnv } from './env';
import { runFilterProxy } from './filter-proxy';
import { requestsThatReconnect } from './request';

/** The run's bearer user JWT (core's managed server), or a plain user and password. */
const credential = (user: string, secret: string) =>
  isUserJwt(secret) ? { authenticator: jwtAuthenticator(secret) } : { user, pass: secret };

async function main(): Promise<void> {
  const env = readBridgeEnv(process.env);
  const subject = subjects.toolsFor(env.NEXUS_RUN_ID);
  let nc: NatsConnection | null = null;
  let request: ReturnType<typeof requestsThatReconnect> | null = null;
  const ask = async (payload: string): Promise<unknown> => {
    if (!request) throw new Error('its NATS server is not reachable yet');
    return (await request(subject, payload)).json();
  };
  const bridge = createGatedBridge(async (tool, args) => ToolReply.parse(await ask(JSON.stringify({ tool, args }))));
  const ready = (async () => {
    nc = await connect({
      servers: env.NEXUS_NATS_URL,
      ...(env.NEXUS_NATS_USER ? credential(env.NEXUS_NATS_USER, env.NEXUS_NATS_PASSWORD ?? '') : {}),
      // The run may subscribe only under its own inbox prefix; the default _INBOX would be refused.
      inboxPrefix: env.NEXUS_INBOX_PREFIX ?? subjects.inboxPrefixFor(env.NEXUS_RUN_ID),
      name: `nexus-mcp-${env.NEXUS_RUN_ID}`,
      waitOnFirstConnect: true,
      maxReconnectAttempts: -1,
      // nats.js otherwise builds two stack-traced errors per request, in case it fails.
      noAsyncTraces: true,
    });
    request = requestsThatReconnect(nc, env.NEXUS_TOOL_TIMEOUT_MS);
    await followCatalog(nc, env.NEXUS_RUN_ID, ask, (tools) => bridge.offer(tools)).first;
  })();
  ready.catch((e: unknown) => process.stderr.write(`nexus-mcp: no catalogue yet: ${(e as Error).message}\n`));
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([
    ready.catch(() => undefined),
    new Promise((r) => (timer = setTimeout(r, env.NEXUS_CATALOG_WAIT_MS))),
  ]);
  clearTimeout(timer);
  const shutdown = async (): Promise<void> => {
    await bridge.server.close().catch(() => undefined);
    await nc?.close().catch(() => undefined);
    process.exit(0);
  };
  process.stdin.on('close', () => void shutdown());
  process.on('SIGTERM', () => void shutdown());
  await bridge.server.connect(new StdioServerTransport());
}

/** `args`: what follows the script (or, from a snapshot, the node binary). */
function start(args: string[]): void {
  if (args[0] === '--filter') runFilterProxy(args);
  else
    main().catch((e: unknown) => {
      // stdout carries JSON-RPC only; diagnostics go to stderr.
      process.stderr.write(`${e instanceof Error ? e.message : String(e)}\n`);
      process.exit(1);
    });
}

// From a snapshot, process.argv has no script: `node --snapshot-blob nexus-mcp.blob -- <args>`.
if (startupSnapshot.isBuildingSnapshot())
  startupSnapshot.setDeserializeMainFunction(() => start(process.argv.slice(1)));
else start(process.argv.slice(2));
