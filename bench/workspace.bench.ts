import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createCore } from '../main/core';
import { operatorContext } from '../main/core/handlers';
import { nodePorts } from '../main/host/node-ports';
import { ensureTestWorkerImage, testBaseImage } from '../test/helpers/docker';
import { serveGitRepo } from '../test/helpers/git-http-server';
import { compare, type Benchmark, type Measurement } from './lib';

const RUNS = 5;

function summarize(samples: number[]): Measurement {
  const sorted = [...samples].sort((a, b) => a - b);
  const pct = (p: number): number => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
  const total = samples.reduce((a, b) => a + b, 0);
  return {
    n: samples.length,
    p50Ms: pct(50),
    p95Ms: pct(95),
    p99Ms: pct(99),
    perSecond: (samples.length / total) * 1000,
  };
}

/**
 * Workspace create → `running` (hardened container, volume, clone of a small repository served on
 * loopback, image already present) against a bare `docker run -d` of the same image, same run.
 */
const bench: Benchmark = async () => {
  const image = await ensureTestWorkerImage();
  const repo = await serveGitRepo(null);
  const dataDir = mkdtempSync(join(tmpdir(), 'nexus-bench-ws-'));
  const core = await createCore(
    { version: 'bench', docker: { baseImage: testBaseImage() } },
    nodePorts(dataDir, process.cwd()),
  );
  const op = operatorContext('internal');
  const prefix = `bench-${randomBytes(3).toString('hex')}`;
  try {
    const bare: number[] = [];
    const subject: number[] = [];
    const runBare = (i: number): void => {
      const name = `${prefix}-bare-${i}`;
      const t = performance.now();
      execFileSync('docker', ['run', '-d', '--name', name, '--network', 'nexus', image]);
      bare.push(performance.now() - t);
      execFileSync('docker', ['rm', '-f', name], { stdio: 'ignore' });
    };
    const runWorkspace = async (i: number): Promise<void> => {
      const t = performance.now();
      await core.dispatcher.call('workspaces.create', { name: `${prefix}-${i}`, repoUrl: repo.url }, op);
      await core.workspaces.idle();
      const ws = await core.dispatcher.call('workspaces.get', { workspace: `${prefix}-${i}` }, op);
      subject.push(performance.now() - t);
      if (ws.status !== 'running') throw new Error(`workspace ended ${ws.status}: ${ws.reason}`);
      await core.dispatcher.call('workspaces.delete', { workspace: ws.id }, op);
    };
    // Interleaved, alternating which goes first, so load from other engine users hits both alike.
    for (let i = 0; i < RUNS; i++) {
      if (i % 2 === 0) {
        runBare(i);
        await runWorkspace(i);
      } else {
        await runWorkspace(i);
        runBare(i);
      }
    }
    return [
      compare(`workspace create → running (p50 of ${RUNS})`, 'bare docker run -d', summarize(subject), summarize(bare)),
    ];
  } finally {
    execFileSync('sh', ['-c', `docker ps -aq --filter name=${prefix} | xargs -r docker rm -f`], { stdio: 'ignore' });
    await core.dispose();
    await repo.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
};
export default bench;
