import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import Docker from 'dockerode';
import { createConnection, createServer, type Socket } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { LABEL, ownerIdFor } from '../../main/core/docker';
import { tempDir } from './temp-dir';

const repoRoot = fileURLToPath(new URL('../..', import.meta.url));

/** The local offline base image (scripts/build-base-image.sh prints its tag; cached). */
export function testBaseImage(): string {
  if (process.env.NEXUS_TEST_BASE_IMAGE) return process.env.NEXUS_TEST_BASE_IMAGE;
  const tag =
    execFileSync('bash', ['scripts/build-base-image.sh'], { cwd: repoRoot, encoding: 'utf8' })
      .trim()
      .split('\n')
      .pop() ?? '';
  process.env.NEXUS_TEST_BASE_IMAGE = tag;
  return tag;
}

/** The pinned Linux Node (.node-version) scripts/install-node.sh installed: what the worker helpers run on. */
export function pinnedWorkerNode(): { version: string; binary: string } {
  const version = readFileSync(join(repoRoot, '.node-version'), 'utf8').trim();
  const binary = join(process.env.NEXUS_NODE_ROOT ?? '/opt/nexus-node', version, 'bin', 'node');
  if (!existsSync(binary)) throw new Error(`${binary} is missing: run bash scripts/install-node.sh`);
  return { version, binary };
}

/** A client straight to the real engine, for checking what core did from the outside. */
export const realDocker = (): Docker => new Docker({ socketPath: '/var/run/docker.sock' });

/** `docker inspect` of a container as JSON text. */
export const inspectJson = (id: string): string => execFileSync('docker', ['inspect', id], { encoding: 'utf8' });

/** Containers carrying a label, by id. */
export async function containersWithLabel(label: string): Promise<string[]> {
  const list = await realDocker().listContainers({ all: true, filters: { label: [label] } });
  return list.map((c) => c.Id);
}

/** Test clean-up: removes every container (with its volumes) and volume the cores on `dataDir` made. */
export async function removeOwnedBy(dataDir: string): Promise<void> {
  await removeOwned(dataDir).catch(() => undefined); // no engine here (a unit test's core): nothing to remove
}

async function removeOwned(dataDir: string): Promise<void> {
  const docker = realDocker();
  const owned = { label: [`${LABEL.managed}=1`, `${LABEL.owner}=${ownerIdFor(dataDir)}`] };
  for (const c of await docker.listContainers({ all: true, filters: owned }))
    await docker
      .getContainer(c.Id)
      .remove({ force: true, v: true })
      .catch(() => undefined);
  const { Volumes } = await docker.listVolumes({ filters: owned });
  for (const v of Volumes ?? [])
    await docker
      .getVolume(v.Name)
      .remove({ force: true })
      .catch(() => undefined);
}

/** Builds (once; cached by content tag) the worker image the tests' cores will ask for. */
export async function ensureTestWorkerImage(): Promise<string> {
  const { WorkerImageBuilder } = await import('../../main/core/docker');
  const builder = new WorkerImageBuilder(realDocker(), { network: 'host' });
  return builder.ensure(
    {
      dir: join(repoRoot, 'resources', 'worker'),
      mcpBridge: join(repoRoot, 'dist', 'worker', 'nexus-mcp.cjs'),
      node: join(repoRoot, 'dist', 'worker', 'node'),
      baseImage: testBaseImage(),
    },
    () => undefined,
  );
}

/**
 * Core config for workspace tests: the default `nexus` bridge network and the local base image.
 * Pass `network: 'host'` for the tests that pin host networking.
 */
export const workspaceTestConfig = (extra: { socketPath?: string; network?: string } = {}) => ({
  docker: { network: 'nexus', baseImage: testBaseImage(), memoryBytes: 512 * 1024 ** 2, pidsLimit: 256, ...extra },
});

/**
 * A unix socket in front of the real engine that counts the HTTP requests passing through it (every
 * dockerode call is one). Point a core's `docker.socketPath` at it; `calls()` is the count so far.
 */
export async function countingDockerSocket(
  target = '/var/run/docker.sock',
): Promise<{ socketPath: string; calls(): number; requests(): string[]; close(): Promise<void> }> {
  const dir = tempDir('nexus-dcount-');
  const socketPath = join(dir.path, 'docker.sock');
  const seen: string[] = [];
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    const upstream = createConnection(target);
    sockets.add(client).add(upstream);
    const drop = (): void => {
      client.destroy();
      upstream.destroy();
    };
    client.on('error', drop).on('close', drop);
    upstream.on('error', drop).on('close', drop);
    client.on('data', (d: Buffer) => {
      for (const m of d.toString('latin1').matchAll(/^(GET|POST|PUT|DELETE|HEAD) (\S+) HTTP\/1\.[01]\r$/gm))
        seen.push(`${m[1]} ${m[2]}`);
    });
    client.pipe(upstream);
    upstream.pipe(client);
  });
  await new Promise<void>((r) => server.listen(socketPath, r));
  return {
    socketPath,
    calls: () => seen.length,
    requests: () => [...seen],
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((r) => server.close(() => r()));
      dir.remove();
    },
  };
}
