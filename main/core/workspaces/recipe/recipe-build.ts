import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import type Docker from 'dockerode';
import { imageExists, packTar, WORKER_NODE, workerBuildContext, type WorkerContext } from '../../docker';
import { RecipeError } from './recipe-error';
import type { RecipeSource } from './devcontainer';

/** Where the repository's image is tagged, by the content of its build (context, Dockerfile, args, target). */
export const RECIPE_REPOSITORY = 'nexus-recipe';
/** The Dockerfile of Nexus's layer, added to the worker's build context. */
const LAYER_DOCKERFILE = 'nexus-layer.Dockerfile';
/** Exit codes of the layer's checks, told apart in the build's error. */
const NO_GLIBC = 97;
const NO_TOOLS = 98;

/**
 * Nexus's worker layer on the repository's image: its helpers (rootfs/), the pinned Node, tmux, git and bash when
 * the image lacks them (apt-get, when it has it), the worker user; the image's own environment stays (PATH, tools,
 * users). The helpers' Node is a glibc binary: an image without glibc (musl, e.g. alpine) is refused here.
 */
const layer = (asRoot: boolean): string => `ARG BASE_IMAGE
FROM \${BASE_IMAGE}
${asRoot ? 'USER root\n' : ''}COPY rootfs/ /
RUN if [ ! -e /lib64/ld-linux-x86-64.so.2 ] && [ ! -e /lib/ld-linux-aarch64.so.1 ]; then \\
      echo "nexus-layer: the image has no glibc (musl or none), which Nexus's helpers (a glibc Node) need" >&2; exit ${NO_GLIBC}; fi; \\
    missing=""; for t in git tmux bash flock; do command -v "$t" >/dev/null 2>&1 || missing="$missing $t"; done; \\
    if [ -n "$missing" ]; then \\
      if command -v apt-get >/dev/null 2>&1; then \\
        apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends git tmux bash util-linux procps ca-certificates >/dev/null \\
          && rm -rf /var/lib/apt/lists/* || { echo "nexus-layer: could not install$missing" >&2; exit ${NO_TOOLS}; }; \\
      else echo "nexus-layer: the image lacks$missing and has no apt-get to install them" >&2; exit ${NO_TOOLS}; fi; fi; \\
    sh /opt/nexus/setup.sh && \\
    if [ -s /opt/nexus/remote-user ]; then (id -u "$(cat /opt/nexus/remote-user)" 2>/dev/null || echo none) > /opt/nexus/remote-user-uid; fi
`;

export type BuildProgress = (line: string, fraction?: number) => void;

export interface RecipeBuildDeps {
  /** The engine the workspace lives on: both images are built there. */
  docker: Docker;
  worker: Omit<WorkerContext, 'installAgentCli' | 'baseImage'>;
  /** The repository's build context as a tar (read from the clone), its Dockerfile at `dockerfile` inside it. */
  context(source: Extract<RecipeSource, { kind: 'build' }>): Promise<{ tar: Buffer; dockerfile: string }>;
}

/** The repository's image (pulled or built), then Nexus's layer on it; the layer's tag. */
export async function buildRecipeImage(
  deps: RecipeBuildDeps,
  source: Exclude<RecipeSource, { kind: 'nexus' }>,
  remoteUser: string | null,
  progress: BuildProgress,
): Promise<string> {
  const base =
    source.kind === 'image'
      ? await ensureImage(deps.docker, source.image, progress)
      : await buildRepo(deps, source, progress);
  const ctx = workerBuildContext({ ...deps.worker, baseImage: base });
  const buildargs = { BASE_IMAGE: base };
  // Every instruction costs a copy of the whole filesystem on the vfs storage driver: USER only when the image has one,
  // the entrypoint set on the container (recipe-apply.ts), the remoteUser as a file of the context.
  const user = (await deps.docker.getImage(base).inspect()).Config?.User ?? '';
  const dockerfile = layer(user !== '' && user !== 'root' && user !== '0');
  const tag = `nexus-worker:r${createHash('sha256')
    .update(ctx.tag)
    .update(dockerfile)
    .update(JSON.stringify([base, remoteUser]))
    .digest('hex')
    .slice(0, 15)}`;
  if (await imageExists(deps.docker, tag)) return tag;
  progress(`Adding Nexus's layer to ${base}`, 0.6);
  const tar = ctx.tar;
  // packTar ends with two zero blocks: the layer's Dockerfile goes before them.
  const withLayer = Buffer.concat([
    tar.subarray(0, tar.length - 1024),
    packTar([
      { path: LAYER_DOCKERFILE, data: Buffer.from(dockerfile), mode: 0o644 },
      { path: 'rootfs/opt/nexus/remote-user', data: Buffer.from(remoteUser ?? ''), mode: 0o644 },
    ]),
  ]);
  await build(
    deps.docker,
    withLayer,
    { t: tag, dockerfile: LAYER_DOCKERFILE, buildargs },
    (l) => progress(l, 0.7),
    'layer',
  );
  return tag;
}

/** An `image` recipe: the engine's copy, else a pull (a registry must answer). */
async function ensureImage(docker: Docker, image: string, progress: BuildProgress): Promise<string> {
  if (await imageExists(docker, image)) return image;
  progress(`Pulling ${image}`, 0.1);
  try {
    const stream = await docker.pull(image);
    await new Promise<void>((resolve, reject) =>
      docker.modem.followProgress(stream, (err: Error | null) => (err ? reject(err) : resolve())),
    );
  } catch (e) {
    throw new RecipeError(
      'image_missing',
      `The image ${image} is not on the engine and could not be pulled: ${msg(e)}`,
    );
  }
  if (!(await imageExists(docker, image)))
    throw new RecipeError('image_missing', `The image ${image} could not be pulled.`);
  return image;
}

async function buildRepo(
  deps: RecipeBuildDeps,
  source: Extract<RecipeSource, { kind: 'build' }>,
  progress: BuildProgress,
): Promise<string> {
  progress(`Reading the build context ${source.context}`, 0.05);
  const { tar, dockerfile } = await deps.context(source);
  const hash = createHash('sha256')
    .update(tar)
    .update(JSON.stringify([source.args, source.target, dockerfile]));
  const tag = `${RECIPE_REPOSITORY}:${hash.digest('hex').slice(0, 16)}`;
  if (await imageExists(deps.docker, tag)) return tag;
  progress(`Building ${source.dockerfile}`, 0.1);
  await build(
    deps.docker,
    tar,
    { t: tag, dockerfile, buildargs: source.args, ...(source.target ? { target: source.target } : {}) },
    (l) => progress(l, 0.3),
    'repo',
  );
  return tag;
}

interface BuildLine {
  stream?: string;
  error?: string;
  errorDetail?: { message?: string };
}

/**
 * One build on the engine, its steps as progress. The engine's host network: a Dockerfile's `RUN apt-get` needs the
 * package mirror, and an engine may have no default bridge (`--bridge=none`).
 */
async function build(
  docker: Docker,
  tar: Buffer,
  opts: { t: string; dockerfile: string; buildargs: Record<string, string>; target?: string },
  progress: (line: string) => void,
  what: 'repo' | 'layer',
): Promise<void> {
  let stream: NodeJS.ReadableStream;
  try {
    stream = await docker.buildImage(Readable.from([tar]), {
      ...opts,
      rm: true,
      forcerm: true,
      networkmode: 'host',
      labels: { 'nexus.managed': '1' },
    });
  } catch (e) {
    throw new RecipeError('build_failed', `The engine refused the build: ${msg(e)}`);
  }
  const tail: string[] = [];
  const failure = await new Promise<string | null>((resolve) => {
    docker.modem.followProgress(
      stream,
      (err: Error | null, output: BuildLine[]) => {
        const bad = output?.find((l) => l.error || l.errorDetail);
        resolve(err ? err.message : bad ? (bad.errorDetail?.message ?? bad.error ?? 'build failed') : null);
      },
      (line: BuildLine) => {
        for (const l of (line.stream ?? '').split('\n').filter((x) => x.trim())) {
          tail.push(l);
          if (tail.length > 8) tail.shift();
          progress(l.slice(0, 200));
        }
      },
    );
  });
  if (failure) throw buildRefusal(failure, tail, what);
}

/**
 * What a failed build means for the operator: the layer's own checks by their exit codes, an image without /bin/sh,
 * else the engine's message with the build's last lines. (The step lines echo the checks' words: only exit codes
 * and the lines the checks printed are read.)
 */
export function buildRefusal(failure: string, tail: readonly string[], what: 'repo' | 'layer'): RecipeError {
  const printed = tail.filter((l) => l.startsWith('nexus-layer:'));
  if (what === 'layer' && failure.includes(`code: ${NO_GLIBC}`))
    return new RecipeError(
      'no_glibc',
      `Nexus cannot layer on this image: it has no glibc (musl-based, e.g. alpine), and Nexus's helpers run on a glibc Node (${WORKER_NODE}). Use a Debian or Ubuntu based image.`,
    );
  if (what === 'layer' && failure.includes(`code: ${NO_TOOLS}`))
    return new RecipeError(
      'build_failed',
      `Nexus cannot layer on this image: ${printed.pop()?.slice(13).trim() ?? failure}`,
    );
  if (what === 'layer' && /\/bin\/sh.*no such file/i.test(failure))
    return new RecipeError('no_shell', 'Nexus cannot layer on this image: it has no /bin/sh.');
  const said = tail.filter((l) => !/^Step \d+\/\d+ :/.test(l)).join('\n');
  return new RecipeError(
    'build_failed',
    `${what === 'repo' ? "The repository's image" : "Nexus's layer"} could not be built: ${failure.trim().slice(0, 300)}${said ? `\n${said.slice(-400)}` : ''}`,
  );
}

const msg = (e: unknown): string => (e instanceof Error ? e.message : String(e)).slice(0, 300);
