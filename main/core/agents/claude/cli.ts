import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, mkdtempSync } from 'node:fs';
import { join } from 'node:path';
import { NexusError } from '../../../../shared/errors';
import type { AgentCpu } from '../agent-cpu';

/**
 * The pinned agent CLI: which package and version every worker runs, and how a host gets it. Workers
 * never install or update it themselves: the host keeps one copy per version and each workspace
 * container gets the directory holding the Linux binary as a read-only bind mount (a copy per
 * container would cost 400 MB on vfs). Upgrading is changing AGENT_CLI_VERSION (scripts/install-agent-cli.sh
 * reads it from here) and restarting the workspaces.
 */
export const AGENT_CLI_PACKAGE = '@anthropic-ai/claude-code';
export const AGENT_CLI_VERSION = '2.1.332';
/** Where the binary's directory is mounted in every worker; `claude` is on PATH through it. */
export const AGENT_CLI_MOUNT = '/opt/nexus/agent';
/** Environment for the CLI in a worker: auto-update off (a CLI rename must not break the fleet at once). */
export const AGENT_CLI_ENV = { DISABLE_AUTOUPDATER: '1' } as const;

export const platformPackage = (cpu: AgentCpu): string => `${AGENT_CLI_PACKAGE}-linux-${cpu}`;

export interface AgentCliInstall {
  /** The directory to bind-mount read-only at AGENT_CLI_MOUNT: it holds the `claude` binary. */
  binaryDir: string;
  version: string;
  /** Where it came from: the operator's directory (config/env) or Nexus's own install. */
  source: 'configured' | 'installed';
}

/**
 * Finds the binary's directory under `dir`: an npm prefix (node_modules/<platform package>/claude), or
 * the platform package's directory itself. Null when neither holds a binary.
 */
export function locateBinaryDir(dir: string, cpu: AgentCpu): { binaryDir: string; version: string } | null {
  for (const candidate of [join(dir, 'node_modules', platformPackage(cpu)), dir]) {
    if (!existsSync(join(candidate, 'claude'))) continue;
    let version = 'unknown';
    try {
      version =
        (JSON.parse(readFileSync(join(candidate, 'package.json'), 'utf8')) as { version?: string }).version ?? version;
    } catch {
      // a bare directory with just the binary: the version is whatever it is
    }
    return { binaryDir: candidate, version };
  }
  return null;
}

export type CliProgress = (step: string, fraction?: number) => void;

export interface AgentCliOptions {
  /** Nexus's data directory; installs go to <dataDir>/agent-cli/<version>. */
  dataDir: string;
  /** An existing install to use instead (config `agent.cliDir`, env NEXUS_AGENT_CLI_DIR). */
  cliDir?: string | undefined;
  /** The npm executable. */
  npm?: string;
  /**
   * Shared installs to use before installing: `<dir>/<version>` as scripts/install-agent-cli.sh
   * leaves it (scripts/provision.sh runs it). Default: /var/cache/nexus-agent-cli on Linux.
   */
  sharedDirs?: string[];
}

export const SHARED_CLI_DIR = '/var/cache/nexus-agent-cli';

/** Gets the pinned CLI for one CPU, once per process: the configured directory, else an install by npm. */
export class AgentCli {
  private readonly pending = new Map<AgentCpu, Promise<AgentCliInstall>>();
  private current: AgentCliInstall | null = null;

  constructor(private readonly opts: AgentCliOptions) {}

  /** What is in use (for app.info), or null before the first ensure. */
  info(): { package: string; version: string; source: AgentCliInstall['source'] | null } {
    return {
      package: AGENT_CLI_PACKAGE,
      version: this.current?.version ?? AGENT_CLI_VERSION,
      source: this.current?.source ?? null,
    };
  }

  ensure(cpu: AgentCpu, progress: CliProgress = () => undefined): Promise<AgentCliInstall> {
    let p = this.pending.get(cpu);
    if (!p) {
      p = this.resolve(cpu, progress).then((r) => (this.current = r));
      // A failure is not cached: the next workspace start tries again (npm may be back online).
      p.catch(() => this.pending.delete(cpu));
      this.pending.set(cpu, p);
    }
    return p;
  }

  private async resolve(cpu: AgentCpu, progress: CliProgress): Promise<AgentCliInstall> {
    if (this.opts.cliDir) {
      const found = locateBinaryDir(this.opts.cliDir, cpu);
      if (!found)
        throw new NexusError(
          'unavailable',
          `The agent CLI directory ${this.opts.cliDir} (agent.cliDir / NEXUS_AGENT_CLI_DIR) holds no Linux ` +
            `${cpu} binary; install it there with scripts/install-agent-cli.sh ${cpu}, or unset it to let Nexus ` +
            `install ${AGENT_CLI_PACKAGE}@${AGENT_CLI_VERSION}.`,
        );
      return { ...found, source: 'configured' };
    }
    const root = join(this.opts.dataDir, 'agent-cli');
    const target = join(root, AGENT_CLI_VERSION);
    const shared = this.opts.sharedDirs ?? (process.platform === 'linux' ? [SHARED_CLI_DIR] : []);
    for (const dir of [target, ...shared.map((d) => join(d, AGENT_CLI_VERSION))]) {
      const have = locateBinaryDir(dir, cpu);
      if (have?.version === AGENT_CLI_VERSION) return { ...have, source: 'installed' };
    }
    mkdirSync(root, { recursive: true });
    const tmp = mkdtempSync(join(root, `.install-${AGENT_CLI_VERSION}-`));
    try {
      progress(`Downloading ${AGENT_CLI_PACKAGE} ${AGENT_CLI_VERSION} for linux-${cpu} (about 400 MB)`, 0);
      await npmInstall(this.opts.npm ?? 'npm', tmp, cpu);
      const got = locateBinaryDir(tmp, cpu);
      if (!got || got.version !== AGENT_CLI_VERSION)
        throw new NexusError(
          'unavailable',
          `npm installed ${AGENT_CLI_PACKAGE} but no linux-${cpu} binary came with it.`,
        );
      rmSync(target, { recursive: true, force: true });
      renameSync(tmp, target);
      progress(`Installed ${AGENT_CLI_PACKAGE} ${AGENT_CLI_VERSION}`, 1);
      return {
        binaryDir: join(target, 'node_modules', platformPackage(cpu)),
        version: got.version,
        source: 'installed',
      };
    } finally {
      rmSync(tmp, { recursive: true, force: true });
    }
  }
}

const HOW_ELSE =
  `or install it yourself (bash scripts/install-agent-cli.sh, or npm install --os=linux ` +
  `--cpu=<x64|arm64> ${AGENT_CLI_PACKAGE}@${AGENT_CLI_VERSION} into a directory) and set agent.cliDir ` +
  `in the config or NEXUS_AGENT_CLI_DIR to that directory`;

function npmInstall(npm: string, prefix: string, cpu: AgentCpu): Promise<void> {
  const args = [
    'install',
    '--prefix',
    prefix,
    '--no-audit',
    '--no-fund',
    '--no-save',
    '--ignore-scripts',
    '--loglevel=error',
    '--os=linux',
    `--cpu=${cpu}`,
    '--libc=glibc',
    `${AGENT_CLI_PACKAGE}@${AGENT_CLI_VERSION}`,
  ];
  return new Promise((resolve, reject) => {
    let stderr = '';
    const child = spawn(npm, args, { stdio: ['ignore', 'ignore', 'pipe'], env: process.env });
    child.stderr.on('data', (d: Buffer) => (stderr = (stderr + d.toString()).slice(-4000)));
    child.on('error', (e: NodeJS.ErrnoException) =>
      reject(
        new NexusError(
          'unavailable',
          e.code === 'ENOENT'
            ? `The agent CLI (${AGENT_CLI_PACKAGE} ${AGENT_CLI_VERSION}) is not installed and npm was not found to ` +
                `install it. Install Node.js with npm, ${HOW_ELSE}.`
            : `npm could not be started to install the agent CLI: ${e.message}. Fix npm, ${HOW_ELSE}.`,
        ),
      ),
    );
    child.on('exit', (code) => {
      if (code === 0) return resolve();
      const offline = /ENOTFOUND|EAI_AGAIN|ECONNREFUSED|ETIMEDOUT|ENETUNREACH|network/i.test(stderr);
      const tail = stderr.trim().split('\n').slice(-3).join(' ').slice(0, 300);
      reject(
        new NexusError(
          'unavailable',
          offline
            ? `The agent CLI (${AGENT_CLI_PACKAGE} ${AGENT_CLI_VERSION}) could not be downloaded: the npm registry ` +
                `is not reachable (${tail}). Connect to the network and try again, ${HOW_ELSE}.`
            : `npm install of ${AGENT_CLI_PACKAGE}@${AGENT_CLI_VERSION} failed (exit ${code}): ${tail}. Try again, ${HOW_ELSE}.`,
        ),
      );
    });
  });
}
