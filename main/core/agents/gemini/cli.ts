import { WORKER_NODE } from '../../docker';
import { PinnedNpmCli, type PinnedNpmCliOptions, type PinnedNpmCliSpec } from '../pinned-npm-cli';

/**
 * The pinned Gemini CLI, an ACP kind. Installed once per version on the host by
 * `bash scripts/install-acp-cli.sh gemini [x64|arm64]` (it reads these constants) into
 * /var/cache/nexus-agent-cli/gemini-<version>, an npm prefix mounted read-only at GEMINI_CLI_MOUNT in every worker;
 * a worker never installs or updates it. It is bundled JavaScript (Node >= 20): it runs on the worker's pinned Node.
 */
export const GEMINI_CLI_PACKAGE = '@google/gemini-cli';
export const GEMINI_CLI_VERSION = '0.61.0';
export const GEMINI_CLI_ENTRY_PACKAGE = '@google/gemini-cli';
export const GEMINI_CLI_ENTRY = 'bundle/gemini.js';
/** Where the install's npm prefix is mounted in every worker. */
export const GEMINI_CLI_MOUNT = '/opt/nexus/gemini';

export const GEMINI_CLI: PinnedNpmCliSpec = {
  kind: 'gemini',
  label: 'Gemini CLI',
  package: GEMINI_CLI_PACKAGE,
  version: GEMINI_CLI_VERSION,
  entryPackage: GEMINI_CLI_ENTRY_PACKAGE,
  entry: GEMINI_CLI_ENTRY,
  mount: 'prefix',
};

/** The agent speaking ACP on its stdio, in a worker. */
export const GEMINI_ACP_ARGV: readonly string[] = [
  WORKER_NODE,
  `${GEMINI_CLI_MOUNT}/node_modules/${GEMINI_CLI_ENTRY_PACKAGE}/${GEMINI_CLI_ENTRY}`,
  '--acp',
];

export class GeminiCli extends PinnedNpmCli {
  constructor(opts: PinnedNpmCliOptions = {}) {
    super(GEMINI_CLI, opts);
  }
}
