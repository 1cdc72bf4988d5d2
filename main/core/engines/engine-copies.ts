import { createHash } from 'node:crypto';
import { readdirSync, readlinkSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import type Docker from 'dockerode';
import { NexusError } from '../../../shared/errors';
import { dockerFailure, imageExists, LABEL, statusOf, streamTar, type EngineProgress, type TarFile } from '../docker';

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

/**
 * Every file and symbolic link under `dir`, paths relative to it (directories come with their files; an empty one is
 * not kept). A link is kept as a link: an npm install's `.bin` shims are links into the packages beside them.
 */
function treeOf(dir: string, under = ''): TarFile[] {
  const out: TarFile[] = [];
  for (const e of readdirSync(join(dir, under), { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
    const path = under ? `${under}/${e.name}` : e.name;
    const file = join(dir, path);
    if (e.isDirectory()) out.push(...treeOf(dir, path));
    else if (e.isSymbolicLink()) out.push({ path, file, mode: 0o777, size: 0, link: readlinkSync(file) });
    else if (e.isFile()) {
      const st = statSync(file);
      out.push({ path, file, mode: st.mode & 0o111 ? 0o755 : 0o644, size: st.size });
    }
  }
  return out;
}

/**
 * The volume that holds an agent CLI's install on a remote engine, named by its files (paths, sizes, times: a new
 * version is a new volume), and those files. A kind's install is a tree (an npm prefix, or a package's directory).
 */
export function agentCliVolumeName(dir: string): { name: string; files: TarFile[] } {
  const files = treeOf(dir);
  const hash = createHash('sha256');
  for (const f of files)
    hash.update(`${f.path}\0${f.link ?? ''}\0${f.size}\0${f.link === undefined ? statSync(f.file).mtimeMs : 0}\n`);
  return { name: `nexus-agent-cli-${hash.digest('hex').slice(0, 16)}`, files };
}

const labelsOf = (owner: string) => ({ [LABEL.managed]: '1', [LABEL.owner]: owner });

/**
 * The agent CLI's volume on the engine, made if it is not there (empty: filled at the first session of its kind,
 * fillAgentCliVolume). A workspace mounts every kind's volume at create, so a kind used later needs no new container:
 * the files a fill writes into the volume appear in every container that mounts it.
 */
export async function ensureAgentCliVolume(docker: Docker, name: string, owner: string): Promise<void> {
  if (await volumeExists(docker, name)) return;
  try {
    await docker.createVolume({ Name: name, Labels: labelsOf(owner) });
  } catch (e) {
    throw dockerFailure(e, 'make the agent CLI volume');
  }
}

/**
 * Puts the agent CLI's files into its volume on the engine, once: a created (never started) container of `image`
 * mounts the volume and takes the files as an archive. The empty `-complete` volume is made only after the copy
 * succeeded: a copy cut short (Nexus stopped, the link dropped) leaves no marker, and the next fill writes the files
 * again over what arrived (the same files: the volume is named by them).
 */
/** Whether the agent CLI's volume on the engine holds its whole install (its `-complete` marker is there). */
export const agentCliVolumeFilled = (docker: Docker, name: string): Promise<boolean> =>
  volumeExists(docker, `${name}-complete`);

export async function fillAgentCliVolume(
  docker: Docker,
  cli: { name: string; files: readonly TarFile[] },
  image: string,
  owner: string,
  progress: EngineProgress,
): Promise<void> {
  if (await agentCliVolumeFilled(docker, cli.name)) return;
  await ensureAgentCliVolume(docker, cli.name, owner);
  const mb = Math.round(cli.files.reduce((n, f) => n + f.size, 0) / 1e6);
  progress(`Copying the agent CLI to the engine (${mb} MB, once per engine and version)`);
  let container: Docker.Container | null = null;
  try {
    container = await docker.createContainer({
      Image: image,
      Cmd: ['true'],
      Labels: { [LABEL.managed]: '1' },
      HostConfig: { Mounts: [{ Type: 'volume', Source: cli.name, Target: COPY_TARGET }], NetworkMode: 'none' },
    });
    await container.putArchive(Readable.from(streamTar(cli.files)), { path: COPY_TARGET });
    await docker.createVolume({ Name: `${cli.name}-complete`, Labels: labelsOf(owner) });
  } catch (e) {
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
