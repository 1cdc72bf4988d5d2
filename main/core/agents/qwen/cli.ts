import { WORKER_NODE } from '../../docker';
import { PinnedNpmCli, type PinnedNpmCliOptions, type PinnedNpmCliSpec } from '../pinned-npm-cli';

/**
 * The pinned Qwen Code CLI, an ACP kind. Installed once per version on the host by
 * `bash scripts/install-acp-cli.sh qwen [x64|arm64]` (it reads these constants) into
 * /var/cache/nexus-agent-cli/qwen-<version>, an npm prefix mounted read-only at QWEN_CLI_MOUNT in every worker;
 * a worker never installs or updates it. It is bundled JavaScript (Node >= 22): it runs on the worker's pinned Node.
 */
export const QWEN_CLI_PACKAGE = '@qwen-code/qwen-code';
export const QWEN_CLI_VERSION = '0.24.4';
export const QWEN_CLI_ENTRY_PACKAGE = '@qwen-code/qwen-code';
export const QWEN_CLI_ENTRY = 'cli-entry.js';
/** Where the install's npm prefix is mounted in every worker. */
export const QWEN_CLI_MOUNT = '/opt/nexus/qwen';

export const QWEN_CLI: PinnedNpmCliSpec = {
  kind: 'qwen',
  label: 'Qwen Code',
  package: QWEN_CLI_PACKAGE,
  version: QWEN_CLI_VERSION,
  entryPackage: QWEN_CLI_ENTRY_PACKAGE,
  entry: QWEN_CLI_ENTRY,
  mount: 'prefix',
};

/** The agent speaking ACP on its stdio, in a worker. */
export const QWEN_ACP_ARGV: readonly string[] = [
  WORKER_NODE,
  `${QWEN_CLI_MOUNT}/node_modules/${QWEN_CLI_ENTRY_PACKAGE}/${QWEN_CLI_ENTRY}`,
  '--acp',
];

export class QwenCli extends PinnedNpmCli {
  constructor(opts: PinnedNpmCliOptions = {}) {
    super(QWEN_CLI, opts);
  }
}
