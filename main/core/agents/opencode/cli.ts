import { PinnedNpmCli, type PinnedNpmCliOptions, type PinnedNpmCliSpec } from '../pinned-npm-cli';

/**
 * The pinned OpenCode CLI, an ACP kind. Installed once per version on the host by
 * `bash scripts/install-acp-cli.sh opencode [x64|arm64]` (it reads these constants) into
 * /var/cache/nexus-agent-cli/opencode-<version>. `opencode-ai` is a launcher; the CLI is the native binary of its
 * optional platform package `opencode-linux-<cpu>` (glibc, AVX2 build), and only that package's directory is mounted
 * read-only at OPENCODE_CLI_MOUNT: a worker runs the binary itself (no launcher process between the agent and its
 * stdio and signals) and never installs or updates it.
 */
export const OPENCODE_CLI_PACKAGE = 'opencode-ai';
export const OPENCODE_CLI_VERSION = '1.18.33';
export const OPENCODE_CLI_ENTRY_PACKAGE = 'opencode-linux-{cpu}';
export const OPENCODE_CLI_ENTRY = 'bin/opencode';
/** Where the platform package's directory is mounted in every worker. */
export const OPENCODE_CLI_MOUNT = '/opt/nexus/opencode';

export const OPENCODE_CLI: PinnedNpmCliSpec = {
  kind: 'opencode',
  label: 'OpenCode',
  package: OPENCODE_CLI_PACKAGE,
  version: OPENCODE_CLI_VERSION,
  entryPackage: OPENCODE_CLI_ENTRY_PACKAGE,
  entry: OPENCODE_CLI_ENTRY,
  mount: 'entry-package',
};

/** The agent speaking ACP on its stdio, in a worker. */
export const OPENCODE_ACP_ARGV: readonly string[] = [`${OPENCODE_CLI_MOUNT}/${OPENCODE_CLI_ENTRY}`, 'acp'];

export class OpenCodeCli extends PinnedNpmCli {
  constructor(opts: PinnedNpmCliOptions = {}) {
    super(OPENCODE_CLI, opts);
  }
}
