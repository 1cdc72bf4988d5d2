import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import type Docker from 'dockerode';
import { copyImage } from '../main/core/engines/engine-copies';
import { linkTo } from '../main/core/engines/engine-link';
import { openStore } from '../main/core/store/open';
import { WorkspaceRuntime } from '../main/core/workspaces/runtime';
import { WorkspaceStore } from '../main/core/workspaces/workspace-store';
import { realDocker, testBaseImage } from '../test/helpers/docker';
import { startSecondEngine } from '../test/helpers/second-engine';
import { tempDir } from '../test/helpers/temp-dir';
import { compare, measure, type Benchmark } from './lib';

const ITERATIONS = Number(process.env.NEXUS_BENCH_REMOTE_EXECS ?? 60);

async function sleeper(docker: Docker, image: string): Promise<Docker.Container> {
  const c = await docker.createContainer({
    Image: image,
    Entrypoint: ['sleep', 'infinity'],
    Labels: { 'nexus.bench': `remote-${randomBytes(3).toString('hex')}` },
    HostConfig: { NetworkMode: 'none' },
  });
  await c.start();
  return c;
}

/**
 * One `exec` (`true`, output read, exit code inspected: what every runtime step costs) through the
 * WorkspaceRuntime on a remote engine — a second dockerd on this machine behind sshd on 127.0.0.1,
 * reached over Nexus's one persistent SSH connection (forwarded socket) — against the same exec on
 * the local engine in the same run. Needs root (test/helpers/second-engine.ts). Goal (issue #29):
 * ≤ 1.2× on loopback SSH.
 */
const bench: Benchmark = async () => {
  const remote = await startSecondEngine({ pool: '10.202.0.0/16' });
  const dir = tempDir('nexus-bench-remote-');
  const local = realDocker();
  const image = testBaseImage();
  const link = linkTo(
    {
      id: 'bench',
      name: 'bench',
      kind: 'ssh',
      url: remote.url,
      keySecretId: 'key',
      caSecretId: null,
      certSecretId: null,
      tlsKeySecretId: null,
      hostKey: remote.hostKey(),
      hostKeyPinned: true,
      createdAt: '',
    },
    () => Promise.resolve({ value: remote.privateKey, kind: 'ssh_private_key' }),
  );
  const db = openStore(join(dir.path, 'bench.db'));
  const containers: Docker.Container[] = [];
  try {
    await copyImage(local, remote.docker, image, () => undefined, 'bench');
    const here = await sleeper(local, image);
    containers.push(here);
    const there = await sleeper(remote.docker, image);
    containers.push(there);
    const runtime = new WorkspaceRuntime({ docker: local, dockerOf: () => link.docker, store: new WorkspaceStore(db) });
    const exec = (containerId: string, engine: string) => async () => {
      const r = await runtime.exec({ name: 'bench', containerId, engine }, ['true']);
      if (r.exitCode !== 0) throw new Error(`exec exited ${r.exitCode}`);
    };
    const opts = { iterations: ITERATIONS, concurrency: 1, warmup: 5 };
    const base = await measure(exec(here.id, 'local'), opts);
    const subject = await measure(exec(there.id, 'bench'), opts);
    const figure = compare(
      'one exec on a remote engine over one SSH connection (loopback)',
      'the same exec on the local engine (unix socket)',
      subject,
      base,
      '≤ 1.2×',
    );
    figure.extra = { sshConnections: link.ssh?.connects ?? 0 };
    return [figure];
  } finally {
    for (const c of containers) await c.remove({ force: true }).catch(() => undefined);
    link.dispose();
    db.close();
    dir.remove();
    await remote.dispose();
  }
};
export default bench;
