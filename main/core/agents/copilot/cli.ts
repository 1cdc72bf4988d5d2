import { PinnedNpmCli, type PinnedNpmCliOptions, type PinnedNpmCliSpec } from '../pinned-npm-cli';

/**
 * The pinned GitHub Copilot CLI, an ACP kind. Installed once per version on the host by
 * `bash scripts/install-acp-cli.sh copilot [x64|arm64]` (it reads these constants) into
 * /var/cache/nexus-agent-cli/copilot-<version>. `@github/copilot` is a launcher; the CLI is the native binary of its
 * optional platform package `@github/copilot-linux-<cpu>` (glibc), and only that package's directory is mounted
 * read-only at COPILOT_CLI_MOUNT: a worker runs the binary itself and never installs or updates it.
 */
export const COPILOT_CLI_PACKAGE = '@github/copilot';
export const COPILOT_CLI_VERSION = '1.0.102';
export const COPILOT_CLI_ENTRY_PACKAGE = '@github/copilot-linux-{cpu}';
export const COPILOT_CLI_ENTRY = 'copilot';
/** Where the platform package's directory is mounted in every worker. */
export const COPILOT_CLI_MOUNT = '/opt/nexus/copilot';
/**
 * The binary's own files, unpacked once at install into this folder of the platform package (the install script
 * runs it with COPILOT_SEA_EXTRACT_ONLY): without it every container's first run unpacks 235 MB into ~/.cache/copilot.
 */
export const COPILOT_PKG_CACHE = 'pkg-cache';

export const COPILOT_CLI: PinnedNpmCliSpec = {
  kind: 'copilot',
  label: 'Copilot CLI',
  package: COPILOT_CLI_PACKAGE,
  version: COPILOT_CLI_VERSION,
  entryPackage: COPILOT_CLI_ENTRY_PACKAGE,
  entry: COPILOT_CLI_ENTRY,
  mount: 'entry-package',
};

/** The agent speaking ACP on its stdio, in a worker. */
export const COPILOT_ACP_ARGV: readonly string[] = [
  `${COPILOT_CLI_MOUNT}/${COPILOT_CLI_ENTRY}`,
  '--acp',
  '--no-auto-update',
  '--disable-client-telemetry',
];

export class CopilotCli extends PinnedNpmCli {
  constructor(opts: PinnedNpmCliOptions = {}) {
    super(COPILOT_CLI, opts);
  }
}
