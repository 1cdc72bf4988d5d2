import { createHash } from 'node:crypto';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import type Docker from 'dockerode';
import { NexusError } from '../../../shared/errors';
import { dockerFailure, imageExists, LABEL, statusOf, streamTar, type EngineProgress } from '../docker';

/** Where a copying container mounts the volume it fills (any path: the copy is the volume's root). */
const COPY_TARGET = '/opt/nexus/cli';

/** Waits for a streamed engine answer (load, build) to end; an error line in it fails the call. */
function drain(docker: Docker, stream: NodeJS.ReadableStream): Promise<void> {
  return new Promise((resolve, reject) => {
    docker.modem.followProgress(stream, (err: Error | null, out: { error?: string }[]) => {
      const bad = out?.find((l) => l.error);
      if (err || bad) reject(new NexusError('unavailable', (err?.message ?? bad?.error ?? 'failed').slice(0, 300)));
      else resolve();
    });
  });
}

/**
 * The worker image on a remote engine: `docker save` on the local engine piped into `docker load`
 * on the remote one, both through the API (the remote never needs a registry or the build context).
 */
export async function copyImage(
  from: Docker,
  to: Docker,
  image: string,
  progress: EngineProgress,
  engineName: string,
): Promise<void> {
  if (await imageExists(to, image)) return;
  progress(`Copying the worker image to engine ${engineName}`);
  try {
    const tar = await from.getImage(image).get();
    await drain(to, await to.loadImage(tar as unknown as NodeJS.ReadableStream));
  } catch (e) {
    throw e instanceof NexusError ? e : dockerFailure(e, `copy the worker image to engine ${engineName}`);
  }
  if (!(await imageExists(to, image)))
    throw new NexusError('unavailable', `The worker image ${image} did not arrive on engine ${engineName}.`);
}

/** The volume that holds the pinned agent CLI on a remote engine, named by the CLI's files (a new version: a new volume). */
export function agentCliVolumeName(dir: string): {
  name: string;
  files: { path: string; file: string; mode: number; size: number }[];
} {
  const files = readdirSync(dir)
    .sort()
    .map((n) => ({ n, st: statSync(join(dir, n)) }))
    .filter(({ st }) => st.isFile())
    .map(({ n, st }) => ({ path: n, file: join(dir, n), mode: st.mode & 0o111 ? 0o755 : 0o644, size: st.size }));
  const hash = createHash('sha256');
  for (const f of files) hash.update(`${f.path}\0${f.size}\0${statSync(f.file).mtimeMs}\n`);
  return { name: `nexus-agent-cli-${hash.digest('hex').slice(0, 16)}`, files };
}

/**
 * Puts the agent CLI's directory into a volume on the engine once: a created (never started)
 * container from the worker image mounts the volume and takes the files as an archive; the volume
 * is removed again if that fails, so a half-filled one is never used.
 */
export async function ensureAgentCliVolume(
  docker: Docker,
  dir: string,
  image: string,
  owner: string,
  progress: EngineProgress,
): Promise<string> {
  const { name, files } = agentCliVolumeName(dir);
  // The empty `-complete` volume is made only after the copy succeeded: a copy cut short (Nexus
  // stopped, the link dropped) leaves no marker, and the next create starts the copy over.
  const marker = `${name}-complete`;
  const labels = { [LABEL.managed]: '1', [LABEL.owner]: owner };
  if ((await volumeExists(docker, name)) && (await volumeExists(docker, marker))) return name;
  progress('Copying the agent CLI to the engine');
  await docker
    .getVolume(name)
    .remove()
    .catch(() => undefined);
  let container: Docker.Container | null = null;
  try {
    await docker.createVolume({ Name: name, Labels: labels });
    container = await docker.createContainer({
      Image: image,
      Cmd: ['true'],
      Labels: { [LABEL.managed]: '1' },
      HostConfig: { Mounts: [{ Type: 'volume', Source: name, Target: COPY_TARGET }], NetworkMode: 'none' },
    });
    await container.putArchive(Readable.from(streamTar(files)), { path: COPY_TARGET });
    await docker.createVolume({ Name: marker, Labels: labels });
    return name;
  } catch (e) {
    await container?.remove({ force: true }).catch(() => undefined);
    container = null;
    await docker
      .getVolume(name)
      .remove()
      .catch(() => undefined);
    throw e instanceof NexusError ? e : dockerFailure(e, 'copy the agent CLI to the engine');
  } finally {
    await container?.remove({ force: true }).catch(() => undefined);
  }
}

async function volumeExists(docker: Docker, name: string): Promise<boolean> {
  try {
    await docker.getVolume(name).inspect();
    return true;
  } catch (e) {
    if (statusOf(e) === 404) return false;
    throw dockerFailure(e, 'look up the agent CLI volume');
  }
}
