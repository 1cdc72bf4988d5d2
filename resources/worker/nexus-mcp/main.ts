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
import { createGatedBridge } from './bridge-server';
import { readBridgeEnv } from './env';
import { runFilterProxy } from './filter-proxy';
import { linkRun } from './run-link';

async function main(): Promise<void> {
  const env = readBridgeEnv(process.env);
  const link = linkRun(
    {
      natsUrl: env.NEXUS_NATS_URL,
      runId: env.NEXUS_RUN_ID,
      user: env.NEXUS_NATS_USER,
      password: env.NEXUS_NATS_PASSWORD,
      inboxPrefix: env.NEXUS_INBOX_PREFIX,
      toolTimeoutMs: env.NEXUS_TOOL_TIMEOUT_MS,
    },
    `nexus-mcp-${env.NEXUS_RUN_ID}`,
  );
  const bridge = createGatedBridge(link.call);
  link.onTools((tools) => bridge.offer(tools));
  link.ready.catch((e: unknown) => process.stderr.write(`nexus-mcp: no catalogue yet: ${(e as Error).message}\n`));
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([
    link.ready.catch(() => undefined),
    new Promise((r) => (timer = setTimeout(r, env.NEXUS_CATALOG_WAIT_MS))),
  ]);
  clearTimeout(timer);
  const shutdown = async (): Promise<void> => {
    await bridge.server.close().catch(() => undefined);
    await link.close();
    process.exit(0);
  };
  process.stdin.on('close', () => void shutdown());
  process.on('SIGTERM', () => void shutdown());
  await bridge.server.connect(new StdioServerTransport());
}

/** `args`: what follows the script (or, from a snapshot, the node binary). */
function start(args: string[]): void {
  if (args[0] === '--filter') runFilterProxy(args);
  // Loaded on first use: the snapshot holds only what a session's stdio start needs.
  else if (args[0] === '--serve') void import('./resident-main').then((m) => m.serveResident(args));
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
