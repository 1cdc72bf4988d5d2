import { execFileSync } from 'node:child_process';
import type { AgentCpu } from '../../main/core/agents/agent-cpu';
import {
  locatePinnedCli,
  type PinnedNpmCliInstall,
  type PinnedNpmCliSpec,
} from '../../main/core/agents/pinned-npm-cli';
import { repoRoot } from './core';

/**
 * The real pinned CLI of an ACP kind for tests: exactly what `scripts/install-acp-cli.sh <kind>` installs
 * (NEXUS_<KIND>_CLI_DIR when set, as scripts/test.sh sets it; else the script runs, a no-op once installed).
 * Returns the install's npm prefix and what is mounted from it.
 */
export function testAcpCli(
  spec: PinnedNpmCliSpec,
  cpu: AgentCpu = process.arch === 'arm64' ? 'arm64' : 'x64',
): Omit<PinnedNpmCliInstall, 'source'> & { prefix: string } {
  const env = `NEXUS_${spec.kind.toUpperCase()}_CLI_DIR`;
  if (!process.env[env]) {
    const out = execFileSync('bash', ['scripts/install-acp-cli.sh', spec.kind, cpu], {
      cwd: repoRoot,
      encoding: 'utf8',
    });
    process.env[env] = out.trim().split('\n').pop() ?? '';
  }
  const prefix = process.env[env];
  const found = locatePinnedCli(spec, prefix, cpu);
  if (!found || found.version !== spec.version)
    throw new Error(`${env}=${prefix} holds no linux-${cpu} ${spec.package} ${spec.version}`);
  return { ...found, prefix };
}
