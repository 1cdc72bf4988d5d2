import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { NexusError } from '../../../../shared/errors';
import type { AgentCpu } from '../agent-cpu';

/**
 * The pinned Codex CLI, the second agent kind. Like Claude Code it is installed once per version on the host
 * (scripts/install-codex-cli.sh reads the pin from here) into /var/cache/nexus-agent-cli/codex-<version> and reaches
 * each worker as a read-only bind mount of the directory holding the native binary; a worker never installs or
 * updates it (check_for_update_on_startup is off in every session's config.toml). Upgrading is changing
 * CODEX_CLI_VERSION, running the script and restarting the workspaces.
 */
export const CODEX_CLI_PACKAGE = '@openai/codex';
export const CODEX_CLI_VERSION = '0.169.0';
/**
 * Where the platform package's `vendor/<triple>` directory is mounted in every worker: `bin/codex` (on PATH), with
 * `codex-path/rg` and `codex-resources/` beside it, where the binary looks for them.
 */
export const CODEX_CLI_MOUNT = '/opt/nexus/codex';
export const CODEX_SHARED_DIR_NAME = `codex-${CODEX_CLI_VERSION}`;

const TRIPLE: Record<AgentCpu, string> = { x64: 'x86_64-unknown-linux-musl', arm64: 'aarch64-unknown-linux-musl' };

/** npm's platform package for one CPU (an alias of `@openai/codex@<version>-linux-<cpu>`). */
export const codexPlatformPackage = (cpu: AgentCpu): string => `${CODEX_CLI_PACKAGE}-linux-${cpu}`;

export interface CodexCliInstall {
  /** The directory to bind-mount read-only at CODEX_CLI_MOUNT: it holds `bin/codex`. */
  binaryDir: string;
  version: string;
  source: 'configured' | 'installed';
}

/**
 * Finds the platform package's `vendor/<triple>` directory under `dir`: an npm prefix as the install script leaves it
 * (node_modules/@openai/codex-linux-<cpu>/vendor/<triple>/bin/codex), or such a directory itself.
 */
export function locateCodexBinaryDir(dir: string, cpu: AgentCpu): { binaryDir: string; version: string } | null {
  const pkg = join(dir, 'node_modules', codexPlatformPackage(cpu));
  for (const candidate of [join(pkg, 'vendor', TRIPLE[cpu]), dir]) {
    if (!existsSync(join(candidate, 'bin', 'codex'))) continue;
    let version = 'unknown';
    try {
      const raw = (JSON.parse(readFileSync(join(pkg, 'package.json'), 'utf8')) as { version?: string }).version;
      // the platform package's version is "<version>-linux-<cpu>"
      if (raw) version = raw.replace(/-linux-(x64|arm64)$/, '');
    } catch {
      // a bare directory with just the binary: the version is whatever it is
    }
    return { binaryDir: candidate, version };
  }
  return null;
}

export interface CodexCliOptions {
  /** An existing install to use (config `agent.codexCliDir`, env NEXUS_CODEX_CLI_DIR). */
  cliDir?: string | undefined;
  /** Shared installs: `<dir>/codex-<version>`. Default: /var/cache/nexus-agent-cli on Linux. */
  sharedDirs?: string[];
}

/**
 * Gets the pinned Codex CLI for one CPU. Unlike Claude Code it is not downloaded on demand (the package is ~400 MB
 * and only sessions that pick Codex need it): the operator or CI installs it with scripts/install-codex-cli.sh.
 */
export class CodexCli {
  private current: CodexCliInstall | null = null;

  constructor(private readonly opts: CodexCliOptions) {}

  info(): { package: string; version: string; source: CodexCliInstall['source'] | null } {
    return {
      package: CODEX_CLI_PACKAGE,
      version: this.current?.version ?? CODEX_CLI_VERSION,
      source: this.current?.source ?? null,
    };
  }

  /** The install for `cpu`, or null when none is there (a workspace then starts without Codex). */
  find(cpu: AgentCpu): CodexCliInstall | null {
    if (this.opts.cliDir) {
      const found = locateCodexBinaryDir(this.opts.cliDir, cpu);
      return (this.current = found ? { ...found, source: 'configured' } : null);
    }
    const shared = this.opts.sharedDirs ?? (process.platform === 'linux' ? ['/var/cache/nexus-agent-cli'] : []);
    for (const dir of shared) {
      const have = locateCodexBinaryDir(join(dir, CODEX_SHARED_DIR_NAME), cpu);
      if (have?.version === CODEX_CLI_VERSION) return (this.current = { ...have, source: 'installed' });
    }
    return null;
  }

  /** Like find, but says how to install it when it is missing. */
  require(cpu: AgentCpu): CodexCliInstall {
    const found = this.find(cpu);
    if (found) return found;
    throw new NexusError(
      'unavailable',
      `The Codex CLI (${CODEX_CLI_PACKAGE} ${CODEX_CLI_VERSION}) is not installed for linux-${cpu}. Install it with ` +
        `bash scripts/install-codex-cli.sh ${cpu} (or set agent.codexCliDir / NEXUS_CODEX_CLI_DIR to an install), ` +
        `then restart the workspace.`,
    );
  }
}
