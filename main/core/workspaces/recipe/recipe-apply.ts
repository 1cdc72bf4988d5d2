import type Docker from 'dockerode';
import { BASE_WORKER_PATH, WORKSPACE_DIR, type WorkerContext, type WorkspaceContainers } from '../../docker';
import type { Logger } from '../../log';
import type { Redactor } from '../../redact';
import type { WorkspaceRuntime } from '../runtime';
import type { WorkspaceRecord } from '../workspace-store';
import { parseDevcontainer, RECIPE_FILES, type Recipe, type RecipeCommand, type RecipeSource } from './devcontainer';
import { buildRecipeImage } from './recipe-build';
import { RecipeError } from './recipe-error';
import type { RecipeStore } from './recipe-store';

/** The Dockerfile's name inside the build context read from the clone. */
const CONTEXT_DOCKERFILE = '.nexus-devcontainer.Dockerfile';
const ENTRYPOINT = '/opt/nexus/bin/nexus-entrypoint';
const MAX_CONTEXT_BYTES = 150 * 1024 * 1024;
const COMMAND_TIMEOUT_MS = 20 * 60_000;

export interface RecipeDeps {
  store: RecipeStore;
  runtime: Pick<WorkspaceRuntime, 'exec'>;
  worker: Omit<WorkerContext, 'installAgentCli' | 'baseImage'>;
  log: Logger;
  redactor: Redactor;
}

type Progress = (step: string, fraction?: number) => void;

/**
 * The repository's devcontainer.json as the workspace's recipe (docs/workspaces.md, "The repo's recipe"): read from
 * the clone, the repository's image built on the workspace's engine with Nexus's layer on top, the container
 * recreated from it on the same volume, the create commands run with their output as the create's progress.
 */
export class WorkspaceRecipes {
  constructor(private readonly d: RecipeDeps) {}

  /** The clone's devcontainer.json, parsed; null when it has none (one exec). */
  async read(w: WorkspaceRecord): Promise<Recipe | null> {
    const r = await this.d.runtime.exec(
      w,
      [
        'sh',
        '-c',
        'for f in "$@"; do if [ -f "$f" ]; then printf "%s\\n" "$f"; exec cat -- "$f"; fi; done; exit 3',
        'sh',
        ...RECIPE_FILES,
      ],
      { workingDir: WORKSPACE_DIR, maxOutput: 1024 * 1024 },
    );
    if (r.exitCode === 3) return null;
    if (r.exitCode !== 0)
      throw new RecipeError('bad_file', `The devcontainer.json could not be read: ${r.stderr.trim().slice(0, 200)}`);
    const nl = r.stdout.indexOf('\n');
    return parseDevcontainer(r.stdout.slice(0, nl), r.stdout.slice(nl + 1));
  }

  /**
   * Builds the recipe's image (nothing for a recipe without image or build) and, when there is one, replaces the
   * container with one from it on the same volume; runs the create and start commands. The container's id and the
   * notes for the workspace's reason (settings ignored, a remoteUser that is not the agent's user).
   */
  async apply(
    w: WorkspaceRecord,
    recipe: Recipe,
    engine: { containers: WorkspaceContainers; spec(image: string): Docker.ContainerCreateOptions },
    progress: Progress,
  ): Promise<{ containerId: string; image: string | null; notes: string[] }> {
    const notes = [...recipe.ignored.map((i) => `${recipe.file}: ignored ${i}`)];
    let containerId = w.containerId as string;
    let image: string | null = null;
    const { containers } = engine;
    if (recipe.source.kind !== 'nexus') {
      const source = recipe.source;
      image = await buildRecipeImage(
        { docker: containers.docker, worker: this.d.worker, context: (s) => this.context(w, s) },
        source,
        recipe.remoteUser,
        (line, f) => progress(`Recipe: ${line}`, f === undefined ? undefined : 0.65 + f * 0.2),
      );
      const imageEnv = await imageEnvOf(containers, image);
      const spec = engine.spec(image);
      spec.Env = recipeEnv(spec.Env ?? [], imageEnv, recipe, notes);
      // Nexus's PID 1 (the layer sets none: one instruction less to build), whatever the image's entrypoint and command.
      spec.Entrypoint = [ENTRYPOINT];
      spec.Cmd = [];
      progress('Recreating the container from the recipe', 0.86);
      await containers.removeContainer(containerId);
      const c = await containers.call('create the container', () => containers.docker.createContainer(spec));
      containerId = c.id;
      await containers.call('start the container', () => c.start());
    } else if (Object.keys(recipe.containerEnv).length + Object.keys(recipe.remoteEnv).length > 0) {
      notes.push(`${recipe.file}: containerEnv and remoteEnv need image or build (Nexus's own image is used as it is)`);
    }
    const target = { ...w, containerId };
    try {
      if (image && recipe.remoteUser) {
        const uid = (await this.d.runtime.exec(target, ['cat', '/opt/nexus/remote-user-uid'])).stdout.trim();
        if (uid !== '1000')
          notes.push(
            `remoteUser ${recipe.remoteUser} is ${uid === 'none' ? 'not a user of the image' : `uid ${uid}`}; everything runs as the agent's user (uid 1000)`,
          );
      }
      await this.runCommands(target, [...recipe.onCreate, ...recipe.onStart], progress);
    } catch (e) {
      // The failed create removes the container it knows (the first one); this one goes here.
      if (containerId !== w.containerId) await containers.removeContainer(containerId).catch(() => undefined);
      throw e;
    }
    this.d.store.save(w.id, recipe, image, notes);
    return { containerId, image, notes };
  }

  /** postStartCommand after a start of a workspace built from a recipe. */
  async started(w: WorkspaceRecord, progress: Progress): Promise<void> {
    const saved = this.d.store.get(w.id);
    if (saved) await this.runCommands(w, saved.recipe.onStart, progress);
  }

  private async runCommands(w: WorkspaceRecord, commands: RecipeCommand[], progress: Progress): Promise<void> {
    for (const c of commands) {
      progress(`${c.label}: starting`);
      let last = '';
      const argv =
        'shell' in c ? ['sh', '-c', `exec 1>&2; ${c.shell}`] : ['sh', '-c', 'exec 1>&2; exec "$@"', 'sh', ...c.argv];
      const r = await this.d.runtime.exec(w, argv, {
        workingDir: WORKSPACE_DIR,
        timeoutMs: COMMAND_TIMEOUT_MS,
        maxOutput: 256 * 1024,
        onStderr: (text) => {
          for (const line of text.split('\n').filter((l) => l.trim())) {
            last = this.d.redactor.text(line).slice(0, 300);
            progress(`${c.label}: ${last}`);
          }
        },
      });
      if (r.exitCode !== 0)
        throw new RecipeError(
          'post_command_failed',
          `${c.label} failed (exit ${r.exitCode}): ${this.d.redactor.text(r.stderr.trim().split('\n').slice(-3).join(' ')).slice(0, 400)}`,
        );
    }
  }

  /**
   * The build context from the clone as a tar, with the Dockerfile added under a fixed name (it may lie outside):
   * the same bytes for the same content (sorted, no times or owners), so its tag finds the image built before; the
   * clone's .git is left out (it differs in every clone).
   */
  private async context(
    w: WorkspaceRecord,
    s: Extract<RecipeSource, { kind: 'build' }>,
  ): Promise<{ tar: Buffer; dockerfile: string }> {
    const slash = s.dockerfile.lastIndexOf('/');
    const dir = slash < 0 ? '.' : s.dockerfile.slice(0, slash);
    const base = s.dockerfile.slice(slash + 1);
    if (!/^[A-Za-z0-9_][A-Za-z0-9._-]*$/.test(base))
      throw new RecipeError(
        'bad_file',
        `The Dockerfile's name ${base} is not one Nexus reads (letters, digits, . _ -).`,
      );
    const script =
      'tar --sort=name --mtime=@0 --owner=0 --group=0 --numeric-owner --exclude=.git -C "$1" -cf - . -C "$2" --transform "s,^$4\\$,$5," -- "$3" | base64 -w0';
    const r = await this.d.runtime.exec(
      w,
      ['sh', '-c', script, 'sh', s.context, dir, base, base.replace(/\./g, '\\.'), CONTEXT_DOCKERFILE],
      { workingDir: WORKSPACE_DIR, maxOutput: Math.ceil((MAX_CONTEXT_BYTES * 4) / 3) + 16, timeoutMs: 120_000 },
    );
    if (r.cut.stdout > 0)
      throw new RecipeError(
        'build_failed',
        `The build context ${s.context} is over ${MAX_CONTEXT_BYTES / 1024 ** 2} MB.`,
      );
    if (r.exitCode !== 0 || r.stderr.trim())
      throw new RecipeError(
        'bad_file',
        `The build context ${s.context} or ${s.dockerfile} could not be read: ${r.stderr.trim().slice(0, 300)}`,
      );
    return { tar: Buffer.from(r.stdout, 'base64'), dockerfile: CONTEXT_DOCKERFILE };
  }
}

async function imageEnvOf(containers: WorkspaceContainers, image: string): Promise<Record<string, string>> {
  const info = await containers.call('inspect the recipe image', () => containers.docker.getImage(image).inspect());
  return Object.fromEntries(
    (info.Config?.Env ?? []).map((e) => {
      const i = e.indexOf('=');
      return [e.slice(0, i), e.slice(i + 1)];
    }),
  );
}

/** Variables no recipe sets: Nexus's own, and HOME (the agent's configuration lives there). */
const RESERVED = /^(HOME|NEXUS_.*|GIT_TERMINAL_PROMPT)$/;

/**
 * The container's environment for a recipe image: Nexus's, with PATH its agents' and helpers' directories first and
 * then the image's own PATH (not replaced: the repository's tools stay found), then containerEnv and remoteEnv
 * (`${containerEnv:NAME}` resolved from the image and containerEnv; `${localEnv:NAME}` is the host's and is never read).
 */
export function recipeEnv(base: string[], image: Record<string, string>, recipe: Recipe, notes: string[]): string[] {
  const env = new Map(base.map((e) => [e.slice(0, e.indexOf('=')), e.slice(e.indexOf('=') + 1)]));
  const nexusPath = (env.get('PATH') ?? BASE_WORKER_PATH).replace(
    `:${BASE_WORKER_PATH.replace('/opt/nexus/bin:', '')}`,
    '',
  );
  const known: Record<string, string> = { ...image };
  env.set('PATH', `${nexusPath}:${image.PATH ?? BASE_WORKER_PATH}`);
  let local = false;
  const resolve = (v: string): string =>
    v.replace(
      /\$\{(containerEnv|localEnv):([A-Za-z_][A-Za-z0-9_]*)(?::([^}]*))?\}/g,
      (_m, kind: string, name: string, dflt?: string) => {
        if (kind === 'localEnv') {
          local = true;
          return dflt ?? '';
        }
        return known[name] ?? dflt ?? '';
      },
    );
  for (const set of [recipe.containerEnv, recipe.remoteEnv])
    for (const [k, raw] of Object.entries(set)) {
      if (RESERVED.test(k)) {
        notes.push(`${recipe.file}: ${k} is Nexus's own and was left as it is`);
        continue;
      }
      const v = resolve(raw);
      known[k] = v;
      env.set(k, k === 'PATH' ? `${nexusPath}:${v}` : v);
    }
  if (local)
    notes.push(
      `${recipe.file}: \${localEnv:…} is the host's environment, which Nexus never hands a container (used the default or empty)`,
    );
  return [...env].map(([k, v]) => `${k}=${v}`);
}
