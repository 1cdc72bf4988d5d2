import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { Readable } from 'node:stream';
import type Docker from 'dockerode';
import { NexusError } from '../../../shared/errors';
import { dockerFailure } from './engine';
import { packTar, type TarEntry } from './tar';

export const DEFAULT_BASE_IMAGE = 'node:20-bookworm';
/** The offline base scripts/build-base-image.sh builds from the Debian mirror where no registry answers. */
export const OFFLINE_BASE_REPOSITORY = 'nexus-base';
export const WORKER_REPOSITORY = 'nexus-worker';
/** Where the bundled platform-tools bridge lands inside the build context (and the image). */
const MCP_BRIDGE_PATH = 'rootfs/opt/nexus/nexus-mcp.cjs';
/** The pinned Node the worker's Nexus helpers run on (.node-version), never the base image's `node`. */
export const WORKER_NODE = '/opt/nexus/node/bin/node';

export interface WorkerContext {
  /** resources/worker */
  dir: string;
  /** dist/worker/nexus-mcp.cjs, copied into the image when it exists. */
  mcpBridge?: string;
  /** dist/worker/node (the pinned Linux Node, copied there by the build), put at WORKER_NODE. */
  node?: string;
  /** Unset: `defaultBaseImage` picks one on this engine. */
  baseImage?: string;
  installAgentCli?: boolean;
}

export interface BuiltContext {
  tar: Buffer;
  tag: string;
  buildargs: Record<string, string>;
}

export type BuildProgress = (step: string, fraction?: number) => void;

/** The build context as a deterministic tar, and a tag derived from its content and build args. */
export function workerBuildContext(ctx: WorkerContext & { baseImage: string }): BuiltContext {
  const entries: TarEntry[] = [];
  const walk = (dir: string): void => {
    for (const name of readdirSync(dir).sort()) {
      const full = join(dir, name);
      const st = statSync(full);
      // TypeScript sources (e.g. nexus-mcp/, bundled separately) and tests never go into the image.
      if (st.isDirectory()) {
        if (name !== 'node_modules') walk(full);
      } else if (st.isFile() && !name.endsWith('.ts')) {
        entries.push({
          path: relative(ctx.dir, full).split(sep).join('/'),
          data: readFileSync(full),
          mode: st.mode & 0o111 ? 0o755 : 0o644,
        });
      }
    }
  };
  walk(ctx.dir);
  if (ctx.mcpBridge && existsSync(ctx.mcpBridge))
    entries.push({ path: MCP_BRIDGE_PATH, data: readFileSync(ctx.mcpBridge), mode: 0o644 });
  const tar = packTar(entries);
  const buildargs = { BASE_IMAGE: ctx.baseImage, INSTALL_AGENT_CLI: ctx.installAgentCli ? '1' : '0' };
  const hash = createHash('sha256').update(tar).update(JSON.stringify(buildargs));
  // The helpers' Node (127 MB) counts in the tag by its digest and is read only when the image is built.
  const node = ctx.node && existsSync(ctx.node) ? ctx.node : null;
  if (!node) return { tar, tag: `${WORKER_REPOSITORY}:${hash.digest('hex').slice(0, 16)}`, buildargs };
  hash.update(`node ${fileDigest(node)}`);
  return {
    get tar() {
      return packTar([...entries, { path: `rootfs${WORKER_NODE}`, data: readFileSync(node), mode: 0o755 }]);
    },
    tag: `${WORKER_REPOSITORY}:${hash.digest('hex').slice(0, 16)}`,
    buildargs,
  };
}

const digests = new Map<string, string>();
/** sha256 of a large file, once per process for the same path, size and modification time. */
function fileDigest(path: string): string {
  const st = statSync(path);
  const key = `${path}\0${st.size}\0${st.mtimeMs}`;
  let digest = digests.get(key);
  if (!digest) {
    digest = createHash('sha256').update(readFileSync(path)).digest('hex');
    digests.set(key, digest);
  }
  return digest;
}

export async function imageExists(docker: Docker, tag: string): Promise<boolean> {
  try {
    await docker.getImage(tag).inspect();
    return true;
  } catch (e) {
    if (statusOf(e) === 404) return false;
    throw dockerFailure(e, 'look up the worker image');
  }
}

/**
 * The base when none is configured: DEFAULT_BASE_IMAGE when the engine has it; else, when
 * provisioning built the offline base (no registry answered), the newest local `nexus-base:*`;
 * else DEFAULT_BASE_IMAGE, which the build then pulls.
 */
export async function defaultBaseImage(docker: Docker): Promise<string> {
  if (await imageExists(docker, DEFAULT_BASE_IMAGE)) return DEFAULT_BASE_IMAGE;
  let images: { Created: number; RepoTags?: string[] | null }[];
  try {
    images = await docker.listImages();
  } catch (e) {
    throw dockerFailure(e, 'list images');
  }
  const offline = images
    .filter((i) => (i.RepoTags ?? []).some((t) => t.startsWith(`${OFFLINE_BASE_REPOSITORY}:`)))
    .sort((a, b) => b.Created - a.Created)[0];
  return offline?.RepoTags?.find((t) => t.startsWith(`${OFFLINE_BASE_REPOSITORY}:`)) ?? DEFAULT_BASE_IMAGE;
}

interface BuildLine {
  stream?: string;
  error?: string;
  errorDetail?: { message?: string };
}

/** Builds the worker image unless an image with the same content tag exists; one build per tag at a time. */
export class WorkerImageBuilder {
  private readonly building = new Map<string, Promise<string>>();
  constructor(
    private readonly docker: Docker,
    private readonly opts: { network: string },
  ) {}

  async ensure(ctx: WorkerContext, progress: BuildProgress): Promise<string> {
    const built = workerBuildContext({ ...ctx, baseImage: ctx.baseImage ?? (await defaultBaseImage(this.docker)) });
    if (await imageExists(this.docker, built.tag)) return built.tag;
    let pending = this.building.get(built.tag);
    if (!pending) {
      pending = this.build(built, progress).finally(() => this.building.delete(built.tag));
      this.building.set(built.tag, pending);
    }
    return pending;
  }

  private async build(built: BuiltContext, progress: BuildProgress): Promise<string> {
    progress(`Building the worker image ${built.tag}`, 0);
    let stream: NodeJS.ReadableStream;
    try {
      stream = await this.docker.buildImage(Readable.from([built.tar]), {
        t: built.tag,
        buildargs: built.buildargs,
        rm: true,
        forcerm: true,
        labels: { 'nexus.managed': '1' },
        ...(this.opts.network === 'host' ? { networkmode: 'host' } : {}),
      });
    } catch (e) {
      throw dockerFailure(e, 'build the worker image');
    }
    const failure = await new Promise<string | null>((resolve) => {
      this.docker.modem.followProgress(
        stream,
        (err: Error | null, output: BuildLine[]) => {
          const bad = output?.find((l) => l.error || l.errorDetail);
          resolve(err ? err.message : bad ? (bad.errorDetail?.message ?? bad.error ?? 'build failed') : null);
        },
        (line: BuildLine) => {
          const m = line.stream?.match(/^Step (\d+)\/(\d+) : (.*)/);
          if (m) progress(`Image step ${m[1]}/${m[2]}: ${(m[3] ?? '').slice(0, 120)}`, Number(m[1]) / Number(m[2]));
        },
      );
    });
    if (failure)
      throw new NexusError('unavailable', `The worker image could not be built: ${failure.trim().slice(0, 500)}`);
    if (!(await imageExists(this.docker, built.tag)))
      throw new NexusError('unavailable', `The worker image build finished but ${built.tag} is missing.`);
    progress(`Built the worker image ${built.tag}`, 1);
    return built.tag;
  }
}

export const statusOf = (e: unknown): number | undefined =>
  typeof e === 'object' && e !== null && typeof (e as { statusCode?: unknown }).statusCode === 'number'
    ? (e as { statusCode: number }).statusCode
    : undefined;
