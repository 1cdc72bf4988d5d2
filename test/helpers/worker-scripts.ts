import { build } from 'esbuild';
import { join } from 'node:path';
import { repoRoot } from './core';

export interface WorkerScripts {
  dir: string;
  hook: string;
  /** The resident hook relay (dist/worker/nexus-hook-relay.cjs). */
  relay: string;
  inboxSend: string;
  agentFixture: string;
  /** The platform-tools MCP bridge, as scripts/build-main.mjs bundles it (dist/worker/nexus-mcp.cjs). */
  nexusMcp: string;
}

/** Bundles the worker-side scripts, nexus-mcp and the agent fixture (node 18 syntax, no dependencies; Nexus runs its helpers on the pinned Node, the fixture on the image's) into dir. */
export async function bundleWorkerScripts(dir: string): Promise<WorkerScripts> {
  const entries = {
    hook: ['resources/worker/nexus-hook/main.ts', 'nexus-hook.cjs', 'cjs'],
    relay: ['resources/worker/nexus-hook-relay/main.ts', 'nexus-hook-relay.cjs', 'cjs'],
    inboxSend: ['resources/worker/nexus-inbox-send/main.ts', 'nexus-inbox-send.cjs', 'cjs'],
    agentFixture: ['resources/worker/fixtures/agent-cli/main.ts', 'agent-fixture.mjs', 'esm'],
    nexusMcp: ['resources/worker/nexus-mcp/main.ts', 'nexus-mcp.cjs', 'cjs'],
  } as const;
  const out: Record<string, string> = {};
  for (const [key, [entry, file, format]] of Object.entries(entries)) {
    out[key] = join(dir, file);
    await build({
      entryPoints: [join(repoRoot, entry)],
      outfile: out[key],
      bundle: true,
      platform: 'node',
      target: 'node18',
      format,
      logLevel: 'error',
    });
  }
  return { dir, ...(out as Omit<WorkerScripts, 'dir'>) };
}
