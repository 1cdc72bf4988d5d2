// The worker-side bundles, one way for the product (scripts/build-main.mjs, into dist/worker) and the tests
// (test/helpers/worker-scripts.ts, into a temporary dir): nexus-mcp, the hook command, the hook relay and the
// inbox helper, on the helpers' pinned Node (24); the tests add the fixture agent CLI, which runs on the
// image's own Node and so keeps a lower syntax target.
import { build } from 'esbuild';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { nexusMcpPlugins } from './nexus-mcp-bundle.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));

/** Each bundle: its source, its file in the output dir, its module format and its syntax target. */
const BUNDLES = {
  nexusMcp: { entry: 'resources/worker/nexus-mcp/main.ts', file: 'nexus-mcp.cjs', plugins: nexusMcpPlugins },
  hook: { entry: 'resources/worker/nexus-hook/main.ts', file: 'nexus-hook.cjs' },
  relay: { entry: 'resources/worker/nexus-hook-relay/main.ts', file: 'nexus-hook-relay.cjs' },
  inboxSend: { entry: 'resources/worker/nexus-inbox-send/main.ts', file: 'nexus-inbox-send.cjs' },
  acpBridge: {
    entry: 'resources/worker/nexus-acp-bridge/main.ts',
    file: 'nexus-acp-bridge.cjs',
    // What it loads after the agent's spawn, each a bundle of its own beside it: before the spawn Node reads and
    // compiles ~10 KB, not ~700 KB (docs/performance.md, "ACP sessions"). Names: main/core/agents/acp/acp-driver.ts.
    lazy: { './core-link': 'nexus-acp-bridge-link.cjs', './mcp-front': 'nexus-acp-bridge-front.cjs' },
  },
};
const FIXTURE = {
  entry: 'resources/worker/fixtures/agent-cli/main.ts',
  file: 'agent-fixture.mjs',
  format: 'esm',
  target: 'node18',
};

/** A bundle's `lazy` dynamic imports, left as imports of their own files beside it (`./<file>`). */
const lazyImports = (lazy) => ({
  name: 'lazy-imports',
  setup(b) {
    b.onResolve({ filter: /^\./ }, (a) =>
      a.kind === 'dynamic-import' && lazy[a.path] ? { path: `./${lazy[a.path]}`, external: true } : undefined,
    );
  },
});

/** Each bundle, and each of its lazy modules as a bundle of its own. */
const withLazy = (bundles) =>
  Object.fromEntries(
    Object.entries(bundles).flatMap(([name, b]) => [
      [name, b.lazy ? { ...b, plugins: [...(b.plugins ?? []), lazyImports(b.lazy)] } : b],
      ...Object.entries(b.lazy ?? {}).map(([spec, file]) => [
        `${name}:${spec}`,
        { entry: join(dirname(b.entry), `${spec}.ts`), file },
      ]),
    ]),
  );

/**
 * Bundles the worker helpers into `outDir` (with the fixture agent CLI when `fixture` is set) and returns each
 * bundle's path by name. `esbuild` options beyond these (a define, source maps) come from the caller.
 */
export async function bundleWorker(outDir, { fixture = false, options = {} } = {}) {
  const wanted = withLazy(fixture ? { ...BUNDLES, agentFixture: FIXTURE } : BUNDLES);
  const paths = {};
  await Promise.all(
    Object.entries(wanted).map(([name, b]) => {
      paths[name] = join(outDir, b.file);
      return build({
        bundle: true,
        platform: 'node',
        target: 'node24',
        logLevel: 'warning',
        ...options,
        entryPoints: [join(root, b.entry)],
        outfile: paths[name],
        format: b.format ?? 'cjs',
        ...(b.target ? { target: b.target } : {}),
        ...(b.plugins ? { plugins: b.plugins } : {}),
      });
    }),
  );
  return paths;
}
