// Bundles the main-process entry points with esbuild. Native and heavy server packages stay
// external (installed in node_modules); the worker-side nexus-mcp is bundled whole so the worker
// image needs nothing but the pinned Node (copied to dist/worker/node below).
import { build } from 'esbuild';
import { copyFileSync, existsSync, readFileSync, statSync } from 'node:fs';
import { bundleWorker } from './worker-bundles.mjs';

const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
const external = [...Object.keys(pkg.dependencies ?? {}), 'electron'];
const define = { __NEXUS_VERSION__: JSON.stringify(pkg.version) };
// The CLI, `nexus serve` and the worker helpers run on the pinned Node (.node-version, 24); the Electron
// shell and preload run on the Node Electron embeds, so they keep a lower syntax target.
const ELECTRON_NODE = 'node22';
const common = { bundle: true, platform: 'node', target: 'node24', sourcemap: true, define, logLevel: 'warning' };

await build({ ...common, entryPoints: ['main/cli.ts'], outfile: 'dist/cli.js', format: 'esm', external });
await build({
  ...common,
  entryPoints: ['main/electron/main.ts'],
  outfile: 'dist/electron/main.cjs',
  format: 'cjs',
  target: ELECTRON_NODE,
  external,
  // store/statement-thread.ts reads import.meta.resolve where it exists (ESM) and Node's require where not (here).
  logOverride: { 'empty-import-meta': 'silent' },
});
await build({
  ...common,
  entryPoints: ['preload/index.ts'],
  outfile: 'dist/preload/index.cjs',
  format: 'cjs',
  target: ELECTRON_NODE,
  external: ['electron'],
});
// The worker-side bundles (nexus-mcp, the hook command, hook relay and inbox helper), copied into each workspace
// container: built by the one script the tests use too.
await bundleWorker('dist/worker', { options: { sourcemap: true, define } });

// The pinned Node the worker helpers run on (.node-version), copied beside them: core puts it into the
// worker image at /opt/nexus/node/bin/node (docs/workspaces.md, "The helpers' Node"). It is the Linux
// binary scripts/install-node.sh installed; NEXUS_WORKER_NODE names another copy of the same version.
const pin = readFileSync(new URL('../.node-version', import.meta.url), 'utf8').trim();
const workerNode = [
  process.env.NEXUS_WORKER_NODE,
  `${process.env.NEXUS_NODE_ROOT ?? '/opt/nexus-node'}/${pin}/bin/node`,
  process.platform === 'linux' && process.version === `v${pin}` ? process.execPath : undefined,
].find((p) => p && existsSync(p));
if (workerNode) {
  const target = 'dist/worker/node';
  const same = existsSync(target) && statSync(target).size === statSync(workerNode).size;
  if (!same || statSync(target).mtimeMs < statSync(workerNode).mtimeMs) copyFileSync(workerNode, target);
} else {
  process.stderr.write(
    `build-main: no Linux Node ${pin} for the worker image (run bash scripts/install-node.sh); ` +
      'workspaces cannot be created until it is there\n',
  );
}
