import { posix } from 'node:path';
import { parse, printParseErrorCode, type ParseError } from 'jsonc-parser';
import { z } from 'zod';
import { RecipeError } from './recipe-error';

// The subset of the Dev Container spec (containers.dev/implementors/json_reference) Nexus honours, parsed with
// jsonc-parser (comments, trailing commas) and checked with zod. What is refused or ignored, and why: docs/workspaces.md.

/** The files Nexus looks for, in the spec's order. */
export const RECIPE_FILES = ['.devcontainer/devcontainer.json', '.devcontainer.json'] as const;

const Command = z.union([
  z.string(),
  z.array(z.string()).min(1),
  z.record(z.string(), z.union([z.string(), z.array(z.string()).min(1)])),
]);
const Env = z.record(
  z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'an environment variable name'),
  z.string().nullable(),
);

/** Nexus's own settings, under the spec's extension point `customizations.nexus`. */
export const NexusCustomizations = z
  .object({
    /** Runs in each new session worktree before its agent starts. */
    setup: z.string().min(1).max(4000).optional(),
    /** What the session page's Run starts, in its own tmux window. */
    run: z.string().min(1).max(4000).optional(),
    /** Hosts a workspace confined by allow-list may reach until the operator edits its list (core/egress). */
    egress: z.array(z.string().min(1).max(253)).max(100).default([]),
    /** Paths a preview opens at (the previews feature). */
    previews: z.array(z.string().regex(/^\//, 'a path starting with /').max(500)).max(20).default([]),
  })
  .strict();
export type NexusCustomizations = z.infer<typeof NexusCustomizations>;

const DevcontainerJson = z
  .object({
    name: z.string().optional(),
    image: z.string().min(1).optional(),
    build: z
      .object({
        dockerfile: z.string().min(1).optional(),
        context: z.string().min(1).optional(),
        args: z.record(z.string(), z.string()).optional(),
        target: z.string().min(1).optional(),
      })
      .passthrough()
      .optional(),
    /** The spec's older spelling of build.dockerfile / build.context. */
    dockerFile: z.string().min(1).optional(),
    context: z.string().min(1).optional(),
    dockerComposeFile: z.unknown().optional(),
    features: z.record(z.string(), z.unknown()).optional(),
    containerEnv: Env.optional(),
    remoteEnv: Env.optional(),
    remoteUser: z.string().min(1).optional(),
    containerUser: z.string().min(1).optional(),
    onCreateCommand: Command.optional(),
    updateContentCommand: Command.optional(),
    postCreateCommand: Command.optional(),
    postStartCommand: Command.optional(),
    forwardPorts: z.array(z.union([z.number().int().min(1).max(65535), z.string()])).optional(),
    portsAttributes: z.record(z.string(), z.object({ label: z.string().optional() }).passthrough()).optional(),
    customizations: z.object({ nexus: z.unknown().optional() }).passthrough().optional(),
  })
  .passthrough();

/** One lifecycle command: a shell line, or an argv run as it is. */
export type RecipeCommand = { label: string; shell: string } | { label: string; argv: string[] };

export type RecipeSource =
  | { kind: 'image'; image: string }
  | { kind: 'build'; dockerfile: string; context: string; args: Record<string, string>; target: string | null }
  /** Neither image nor build: Nexus's own image, the file's other settings applied. */
  | { kind: 'nexus' };

export interface Recipe {
  /** Where it was read, relative to the clone. */
  file: string;
  source: RecipeSource;
  containerEnv: Record<string, string>;
  remoteEnv: Record<string, string>;
  remoteUser: string | null;
  /** onCreateCommand, updateContentCommand, postCreateCommand: once, after the workspace is built. */
  onCreate: RecipeCommand[];
  /** postStartCommand: after each start. */
  onStart: RecipeCommand[];
  forwardPorts: { port: number; label: string | null }[];
  nexus: NexusCustomizations;
  /** Settings read but not applied, each with why (shown on the workspace). */
  ignored: string[];
}

/** Keys Nexus reads and deliberately leaves, with the reason the operator is told. */
const IGNORED: Record<string, string> = {
  initializeCommand: 'it would run on the host, outside the container',
  postAttachCommand: 'Nexus never attaches an editor',
  runArgs: 'the container is created hardened by Nexus',
  mounts: 'the container is created hardened by Nexus',
  privileged: 'the container is created hardened by Nexus',
  capAdd: 'the container is created hardened by Nexus',
  securityOpt: 'the container is created hardened by Nexus',
  appPort: 'use forwardPorts',
  workspaceFolder: 'the clone is always at /workspace',
  workspaceMount: 'the clone is always at /workspace',
  shutdownAction: 'Nexus stops the container itself',
  overrideCommand: "Nexus's entrypoint is always PID 1",
  hostRequirements: 'the engine decides',
};

/** Parses and checks a devcontainer.json read from `file` (relative to the clone); a RecipeError says why not. */
export function parseDevcontainer(file: string, text: string): Recipe {
  const errors: ParseError[] = [];
  const raw: unknown = parse(text, errors, { allowTrailingComma: true, disallowComments: false });
  if (errors.length > 0) {
    const e = errors[0] as ParseError;
    throw new RecipeError(
      'bad_file',
      `${file} is not valid JSON with comments: ${printParseErrorCode(e.error)} at offset ${e.offset}.`,
    );
  }
  const checked = DevcontainerJson.safeParse(raw);
  if (!checked.success) throw new RecipeError('bad_file', `${file}: ${zodSummary(checked.error)}`);
  const j = checked.data;
  if (j.dockerComposeFile !== undefined)
    throw new RecipeError(
      'unsupported',
      `${file} uses dockerComposeFile: a workspace is one container, so Docker Compose recipes are not honoured.`,
    );
  refuseFeatures(file, j.features ?? {});
  const nexus = NexusCustomizations.safeParse(j.customizations?.nexus ?? {});
  if (!nexus.success) throw new RecipeError('bad_file', `${file} customizations.nexus: ${zodSummary(nexus.error)}`);
  const dir = posix.dirname(file);
  const dockerfile = j.build?.dockerfile ?? j.dockerFile;
  let source: RecipeSource;
  if (dockerfile) {
    source = {
      kind: 'build',
      dockerfile: inClone(file, posix.join(dir, dockerfile)),
      context: inClone(file, posix.join(dir, j.build?.context ?? j.context ?? '.')),
      args: j.build?.args ?? {},
      target: j.build?.target ?? null,
    };
  } else if (j.image) source = { kind: 'image', image: j.image };
  else source = { kind: 'nexus' };
  const record = j as Record<string, unknown>;
  return {
    file,
    source,
    containerEnv: definedEnv(j.containerEnv),
    remoteEnv: definedEnv(j.remoteEnv),
    remoteUser: j.remoteUser ?? j.containerUser ?? null,
    onCreate: [
      ...commands('onCreateCommand', j.onCreateCommand),
      ...commands('updateContentCommand', j.updateContentCommand),
      ...commands('postCreateCommand', j.postCreateCommand),
    ],
    onStart: commands('postStartCommand', j.postStartCommand),
    forwardPorts: (j.forwardPorts ?? []).flatMap((p) => {
      const port = typeof p === 'number' ? p : Number(/^(?:[^:]*:)?(\d{1,5})$/.exec(p)?.[1]);
      if (!Number.isInteger(port) || port < 1 || port > 65535) return [];
      return [{ port, label: j.portsAttributes?.[String(port)]?.label ?? null }];
    }),
    nexus: nexus.data,
    ignored: Object.keys(IGNORED)
      .filter((k) => record[k] !== undefined)
      .map((k) => `${k} (${IGNORED[k]})`),
  };
}

/**
 * Features are OCI artifacts (ghcr.io/devcontainers/features/...) or tarballs from a URL: Nexus fetches from no
 * registry, so a recipe that names one is refused rather than built without it; a local feature is not honoured yet.
 */
function refuseFeatures(file: string, features: Record<string, unknown>): void {
  const ids = Object.keys(features);
  if (ids.length === 0) return;
  const remote = ids.filter((id) => !id.startsWith('./') && !id.startsWith('../'));
  if (remote.length > 0)
    throw new RecipeError(
      'features_unreachable',
      `${file} names features that need a registry (${remote.join(', ')}); Nexus installs features from no registry. ` +
        'Install what they add in the Dockerfile (build.dockerfile) instead.',
    );
  throw new RecipeError(
    'unsupported',
    `${file} names local features (${ids.join(', ')}), which Nexus does not install yet; install them in the Dockerfile.`,
  );
}

/** A path inside the clone, never above it. */
function inClone(file: string, path: string): string {
  const p = posix.normalize(path);
  if (p.startsWith('../') || p === '..' || posix.isAbsolute(p))
    throw new RecipeError('bad_file', `${file} points outside the repository (${path}).`);
  return p === '' ? '.' : p;
}

function definedEnv(env: Record<string, string | null> | undefined): Record<string, string> {
  return Object.fromEntries(Object.entries(env ?? {}).filter((e): e is [string, string] => e[1] !== null));
}

function commands(label: string, c: z.infer<typeof Command> | undefined): RecipeCommand[] {
  if (c === undefined) return [];
  if (typeof c === 'string') return c.trim() ? [{ label, shell: c }] : [];
  if (Array.isArray(c)) return [{ label, argv: c }];
  return Object.entries(c).map(([name, v]) =>
    typeof v === 'string' ? { label: `${label} ${name}`, shell: v } : { label: `${label} ${name}`, argv: v },
  );
}

const zodSummary = (e: z.ZodError): string =>
  e.issues
    .slice(0, 3)
    .map((i) => `${i.path.join('.') || '(top)'}: ${i.message}`)
    .join('; ');
