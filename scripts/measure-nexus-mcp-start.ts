/**
 * nexus-mcp's start time and memory in a real worker container, on the base image's Debian Node
 * (`node`, the bundle built for node18 as before) and on the pinned Node the worker image ships
 * (/opt/nexus/node/bin/node, dist/worker/nexus-mcp.cjs). Start = spawn to the answer to MCP
 * `initialize` (no NATS reachable and NEXUS_CATALOG_WAIT_MS=1, so no catalogue wait: Node's start,
 * loading the bundle, the handshake), with its CPU time (utime + stime, 10 ms ticks); RSS = VmRSS just after that answer and VmHWM (its peak).
 * Medians of N runs, one after another, measured inside the container (no docker exec in the timing).
 * Usage (after npm run build): node --import tsx scripts/measure-nexus-mcp-start.ts [runs]
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { build } from 'esbuild';
import { WORKER_NODE } from '../main/core/docker';
import { repoRoot } from '../test/helpers/core';
import { ensureTestWorkerImage } from '../test/helpers/docker';
import { tempDir } from '../test/helpers/temp-dir';

const runs = Number(process.argv[2] ?? 15);
const docker = (args: string[], input?: string): string =>
  execFileSync('docker', args, { encoding: 'utf8', ...(input === undefined ? {} : { input }) });

/** Runs inside the container: spawns `node bundle` N times and reports medians as JSON. */
const INNER = `
const { spawn } = require('child_process');
const { readFileSync } = require('fs');
const [node, bundle, n] = process.argv.slice(2);
const cpuMs = (pid) => { const f = readFileSync('/proc/' + pid + '/stat', 'utf8').split(') ')[1].split(' '); return (Number(f[11]) + Number(f[12])) * 10; };
const kb = (pid, key) => Number(new RegExp(key + ':\\\\s+(\\\\d+)').exec(readFileSync('/proc/' + pid + '/status', 'utf8'))[1]);
const once = () => new Promise((done, fail) => {
  const env = { PATH: process.env.PATH, NEXUS_NATS_URL: 'nats://127.0.0.1:1', NEXUS_RUN_ID: 'measure', NEXUS_CATALOG_WAIT_MS: '1' };
  const t0 = process.hrtime.bigint();
  const p = spawn(node, [bundle], { env, stdio: ['pipe', 'pipe', 'ignore'] });
  p.on('error', fail);
  p.stdout.once('data', () => {
    const ms = Number(process.hrtime.bigint() - t0) / 1e6;
    const r = { ms, cpu: cpuMs(p.pid), rss: kb(p.pid, 'VmRSS') / 1024, hwm: kb(p.pid, 'VmHWM') / 1024 };
    p.kill('SIGKILL');
    p.on('exit', () => done(r));
  });
  p.stdin.write(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'measure', version: '1' } } }) + '\\n');
});
const median = (xs) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)];
(async () => {
  await once(); // warm the page cache
  const all = [];
  for (let i = 0; i < Number(n); i++) all.push(await once());
  const version = require('child_process').execFileSync(node, ['--version'], { encoding: 'utf8' }).trim();
  console.log(JSON.stringify({ version, startMs: median(all.map((r) => r.ms)), cpuMs: median(all.map((r) => r.cpu)), rssMb: median(all.map((r) => r.rss)), hwmMb: median(all.map((r) => r.hwm)) }));
})();
`;

const out = tempDir('nexus-mcp-measure-');
const name = `nexus-mcp-measure-${randomBytes(4).toString('hex')}`;
try {
  await build({
    entryPoints: [join(repoRoot, 'resources/worker/nexus-mcp/main.ts')],
    outfile: join(out.path, 'nexus-mcp-node18.cjs'),
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node18',
    logLevel: 'warning',
  });
  const image = await ensureTestWorkerImage();
  docker(['run', '-d', '--rm', '--name', name, '--network', 'none', image]);
  docker(['cp', join(out.path, 'nexus-mcp-node18.cjs'), `${name}:/tmp/nexus-mcp-node18.cjs`]);
  docker(['exec', '-i', name, 'sh', '-c', 'cat > /tmp/measure.cjs'], INNER);
  const measure = (node: string, bundle: string): string =>
    docker(['exec', name, WORKER_NODE, '/tmp/measure.cjs', node, bundle, String(runs)]).trim();
  const before = JSON.parse(measure('node', '/tmp/nexus-mcp-node18.cjs')) as Record<string, unknown>;
  const after = JSON.parse(measure(WORKER_NODE, '/opt/nexus/nexus-mcp.cjs')) as Record<string, unknown>;
  process.stdout.write(`${JSON.stringify({ runs, before, after }, null, 2)}\n`);
} finally {
  execFileSync('docker', ['rm', '-f', name], { stdio: 'ignore' });
  out.remove();
}
