import { bundleWorker } from '../../scripts/worker-bundles.mjs';

export interface WorkerScripts {
  dir: string;
  hook: string;
  /** The resident hook relay (nexus-hook-relay.cjs). */
  relay: string;
  inboxSend: string;
  agentFixture: string;
  /** The platform-tools MCP bridge (nexus-mcp.cjs). */
  nexusMcp: string;
}

/** Bundles the worker-side scripts and nexus-mcp as the product's build does (scripts/worker-bundles.mjs), plus the agent fixture, into dir. */
export async function bundleWorkerScripts(dir: string): Promise<WorkerScripts> {
  const paths = (await bundleWorker(dir, { fixture: true })) as Omit<WorkerScripts, 'dir'>;
  return { dir, ...paths };
}
