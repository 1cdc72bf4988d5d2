// Bundles the main-process entry points with esbuild. Native and heavy server packages stay
// external (installed in node_modules); the worker-side nexus-mcp is bundled whole so the worker
// image needs nothing but node.
import { build } from 'esbuild';
import { existsSync, readFileSync } from 'node:fs';

const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
const external = [...Object.keys(pkg.dependencies ?? {}), 'electron'];
const define = { __NEXUS_VERSION__: JSON.stringify(pkg.version) };
const common = { bundle: true, platform: 'node', target: 'node20', sourcemap: true, define, logLevel: 'warning' };

await build({ ...common, entryPoints: ['main/cli.ts'], outfile: 'dist/cli.js', format: 'esm', external });
await build({
  ...common,
  entryPoints: ['main/electron/main.ts'],
  outfile: 'dist/electron/main.cjs',
  format: 'cjs',
  external,
});
await build({
  ...common,
  entryPoints: ['preload/index.ts'],
  outfile: 'dist/preload/index.cjs',
  format: 'cjs',
  external: ['electron'],
});
if (existsSync('resources/worker/nexus-mcp/main.ts')) {
  await build({
    ...common,
    entryPoints: ['resources/worker/nexus-mcp/main.ts'],
    outfile: 'dist/worker/nexus-mcp.cjs',
    format: 'cjs',
    target: 'node18',
  });
}
// Sessions: the worker-side hook command, hook relay and inbox helper, copied into each workspace container.
for (const name of ['nexus-hook', 'nexus-hook-relay', 'nexus-inbox-send']) {
  await build({
    ...common,
    entryPoints: [`resources/worker/${name}/main.ts`],
    outfile: `dist/worker/${name}.cjs`,
    format: 'cjs',
    target: 'node18',
  });
}
