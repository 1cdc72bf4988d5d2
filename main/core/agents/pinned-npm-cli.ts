import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { AgentCliInfo } from '../../../shared/contract';
import { NexusError } from '../../../shared/errors';
import type { AgentCpu } from './agent-cpu';

/**
 * One agent CLI pinned to an npm package, installed on the host by scripts/install-acp-cli.sh <kind> into
 * `<cache>/<kind>-<version>` (an npm prefix) and mounted read-only into every worker; a worker never installs or
 * updates it. A kind's cli.ts declares it: the script reads the same constants (pin_value).
 */
export interface PinnedNpmCliSpec {
  /** The kind's id: the install directory is `<kind>-<version>`, the script's argument. */
  kind: string;
  /** What people call it, in errors. */
  label: string;
  /** The package npm installs, and its pinned version. */
  package: string;
  version: string;
  /** The package holding the entry point (`{cpu}` stands for x64 / arm64); its package.json carries the version. */
  entryPackage: string;
  /** The entry point inside entryPackage (a JS file run on the worker's Node, or a native binary). */
  entry: string;
  /**
   * What is mounted: the whole npm prefix (a JS CLI: its optional native parts sit beside it in node_modules), or
   * the entry package's directory alone (a native binary).
   */
  mount: 'prefix' | 'entry-package';
}

export interface PinnedNpmCliInstall {
  /** The host directory to bind-mount read-only at the kind's mount target. */
  mountDir: string;
  /** The entry point, relative to mountDir. */
  entry: string;
  version: string;
  source: 'configured' | 'installed';
}

export const SHARED_AGENT_CLI_CACHE = '/var/cache/nexus-agent-cli';

export const entryPackageFor = (spec: PinnedNpmCliSpec, cpu: AgentCpu): string =>
  spec.entryPackage.replaceAll('{cpu}', cpu);

/** The version in a package.json, or null. */
function versionAt(packageDir: string): string | null {
  try {
    const v = (JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8')) as { version?: unknown }).version;
    return typeof v === 'string' ? v : null;
  } catch {
    return null;
  }
}

/**
 * Finds a complete install under `dir`: an npm prefix as the script leaves it (node_modules/<entry package>/<entry>
 * and its package.json), or, for a native binary, the entry package's directory itself. Null when neither is there.
 */
export function locatePinnedCli(
  spec: PinnedNpmCliSpec,
  dir: string,
  cpu: AgentCpu,
): Omit<PinnedNpmCliInstall, 'source'> | null {
  const pkgDir = join(dir, 'node_modules', entryPackageFor(spec, cpu));
  if (existsSync(join(pkgDir, spec.entry))) {
    const version = versionAt(pkgDir);
    if (!version) return null;
    return spec.mount === 'prefix'
      ? { mountDir: dir, entry: join('node_modules', entryPackageFor(spec, cpu), spec.entry), version }
      : { mountDir: pkgDir, entry: spec.entry, version };
  }
  if (spec.mount === 'entry-package' && existsSync(join(dir, spec.entry)))
    return { mountDir: dir, entry: spec.entry, version: versionAt(dir) ?? 'unknown' };
  return null;
}

export interface PinnedNpmCliOptions {
  /** An existing install to use (its `agent.kinds.<kind>.cliDir` setting, env NEXUS_<KIND>_CLI_DIR). */
  cliDir?: string | undefined;
  /** Shared installs: `<dir>/<kind>-<version>`. Default: /var/cache/nexus-agent-cli on Linux. */
  sharedDirs?: string[];
}

/**
 * Gets a pinned CLI for one CPU: the configured directory, else the script's install of exactly the pinned version.
 * Nexus does not download it on demand (only sessions of this kind need it).
 */
export class PinnedNpmCli {
  private current: PinnedNpmCliInstall | null = null;

  constructor(
    readonly spec: PinnedNpmCliSpec,
    private readonly opts: PinnedNpmCliOptions = {},
  ) {}

  /** The pinned package and what is in use (Settings → About, get_nexus_info); source null before a find. */
  info(): AgentCliInfo {
    return {
      package: this.spec.package,
      version: this.current?.version ?? this.spec.version,
      source: this.current?.source ?? null,
    };
  }

  /** The install for `cpu`, or null when none is there. */
  find(cpu: AgentCpu): PinnedNpmCliInstall | null {
    if (this.opts.cliDir) {
      const found = locatePinnedCli(this.spec, this.opts.cliDir, cpu);
      return (this.current = found ? { ...found, source: 'configured' } : null);
    }
    const shared = this.opts.sharedDirs ?? (process.platform === 'linux' ? [SHARED_AGENT_CLI_CACHE] : []);
    for (const dir of shared) {
      const have = locatePinnedCli(this.spec, join(dir, `${this.spec.kind}-${this.spec.version}`), cpu);
      if (have?.version === this.spec.version) return (this.current = { ...have, source: 'installed' });
    }
    return null;
  }

  /** Like find, but says how to install it when it is missing. */
  require(cpu: AgentCpu): PinnedNpmCliInstall {
    const found = this.find(cpu);
    if (found) return found;
    const env = `NEXUS_${this.spec.kind.toUpperCase().replace(/-/g, '_')}_CLI_DIR`;
    throw new NexusError(
      'unavailable',
      `${this.spec.label} (${this.spec.package} ${this.spec.version}) is not installed for linux-${cpu}. Install it ` +
        `with bash scripts/install-acp-cli.sh ${this.spec.kind} ${cpu} (or set ${env} to an install), then create ` +
        `the workspace again.`,
    );
  }
}
