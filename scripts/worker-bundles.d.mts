import type { BuildOptions } from 'esbuild';

/** Each bundle's path by name: nexusMcp, hook, relay, inboxSend, and agentFixture when asked for. */
export declare function bundleWorker(
  outDir: string,
  opts?: { fixture?: boolean; options?: BuildOptions },
): Promise<Record<string, string>>;
