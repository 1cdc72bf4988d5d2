import { execFile, execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import type { AgentCpu } from '../../main/core/agents';
import { AGENT_CLI_MOUNT, locateBinaryDir } from '../../main/core/agents/claude/cli';
import { locateCodexBinaryDir } from '../../main/core/agents/codex/cli';
import { workspaceContainerSpec } from '../../main/core/docker';
import { testDrivers } from './agent-drivers';
import { repoRoot } from './core';
import { ensureTestWorkerImage, realDocker } from './docker';

/**
 * The real agent CLI for tests: exactly the pinned version scripts/install-agent-cli.sh installs
 * (NEXUS_AGENT_CLI_DIR when set, as CI sets it; else the script runs, a no-op once installed).
 */
export function testAgentCliDir(cpu: AgentCpu = process.arch === 'arm64' ? 'arm64' : 'x64'): string {
  if (!process.env.NEXUS_AGENT_CLI_DIR) {
    const out = execFileSync('bash', ['scripts/install-agent-cli.sh', cpu], { cwd: repoRoot, encoding: 'utf8' });
    process.env.NEXUS_AGENT_CLI_DIR = out.trim().split('\n').pop() ?? '';
  }
  const found = locateBinaryDir(process.env.NEXUS_AGENT_CLI_DIR, cpu);
  if (!found) throw new Error(`NEXUS_AGENT_CLI_DIR=${process.env.NEXUS_AGENT_CLI_DIR} holds no linux-${cpu} agent CLI`);
  return found.binaryDir;
}

export interface TestNetwork {
  name: string;
  /** The bridge gateway: the host side, where containers reach servers the test runs. */
  gateway: string;
  remove(): Promise<void>;
}

/** A user-defined bridge network (labelled nexus.test) for one test file. */
export async function testBridgeNetwork(prefix = 'nexus-test'): Promise<TestNetwork> {
  const docker = realDocker();
  const name = `${prefix}-${randomBytes(4).toString('hex')}`;
  const net = await docker.createNetwork({ Name: name, Driver: 'bridge', Labels: { 'nexus.test': name } });
  const info = (await net.inspect()) as { IPAM?: { Config?: { Gateway?: string }[] } };
  const gateway = info.IPAM?.Config?.[0]?.Gateway;
  if (!gateway) throw new Error(`network ${name} has no gateway`);
  return {
    name,
    gateway,
    remove: async () => {
      const cs = await docker.listContainers({ all: true, filters: { network: [name] } });
      for (const c of cs) await docker.getContainer(c.Id).remove({ force: true, v: true });
      await net.remove().catch(() => undefined);
    },
  };
}

export interface ExecResult {
  exitCode: number;
  stdout: string;
  stderr: string;
}

/** `docker exec -i` with stdin written whole (never in argv or env), as the container's user. */
export function dockerExec(containerId: string, cmd: string[], opts: { stdin?: string } = {}): Promise<ExecResult> {
  return new Promise((resolve) => {
    const child = execFile(
      'docker',
      ['exec', '-i', containerId, ...cmd],
      { encoding: 'utf8', maxBuffer: 16 * 1024 * 1024, timeout: 120_000 },
      (err, stdout, stderr) =>
        resolve({ exitCode: err ? (typeof err.code === 'number' ? err.code : -1) : 0, stdout, stderr }),
    );
    child.stdin?.end(opts.stdin ?? '');
  });
}

export interface AgentContainer {
  id: string;
  exec(cmd: string[], opts?: { stdin?: string }): Promise<ExecResult>;
  /** `sh -c script` as the worker user; throws on a non-zero exit. */
  sh(script: string, stdin?: string): Promise<string>;
  /** The pane of a tmux window (`nexus:<name>`). */
  pane(window: string): Promise<string>;
  remove(): Promise<void>;
}

/**
 * A hardened workspace container (workspaceContainerSpec) from the worker image on `network`, with
 * the pinned CLI mounted read-only and `claude` on PATH, a git repository at /workspace and a
 * worktree per name in `worktrees`. For tests that drive the real CLI without a core.
 */
export async function startAgentContainer(opts: {
  network: string;
  cliDir: string;
  worktrees?: string[];
}): Promise<AgentContainer> {
  const docker = realDocker();
  const image = await ensureTestWorkerImage();
  const tag = randomBytes(4).toString('hex');
  const spec = workspaceContainerSpec(
    { id: `agent-test-${tag}`, name: `agent-test-${tag}`, volume: 'unused' },
    image,
    `agent-test-${tag}`,
    { network: opts.network, memoryBytes: 1024 ** 3, pidsLimit: 512 },
    { mounts: [{ source: { bind: opts.cliDir }, target: AGENT_CLI_MOUNT }], path: testDrivers().workerPath() },
  );
  spec.Labels = { ...spec.Labels, 'nexus.test': `agent-test-${tag}` };
  // No workspace volume: the clone lives in the container's own layer, removed with it.
  spec.HostConfig = { ...spec.HostConfig, Mounts: (spec.HostConfig?.Mounts ?? []).filter((m) => m.Type === 'bind') };
  const c = await docker.createContainer(spec);
  await c.start();
  const exec = (cmd: string[], o: { stdin?: string } = {}) => dockerExec(c.id, cmd, o);
  const sh = async (script: string, stdin?: string): Promise<string> => {
    const r = await exec(['sh', '-c', script], stdin === undefined ? {} : { stdin });
    if (r.exitCode !== 0) throw new Error(`in container: ${script.slice(0, 200)}: ${r.stderr}`);
    return r.stdout;
  };
  await sh(
    'git config --global user.email t@example.invalid && git config --global user.name test && ' +
      'git init -q -b main /workspace && cd /workspace && echo hello > README.md && git add . && git commit -qm init',
  );
  for (const w of opts.worktrees ?? [])
    await sh(
      `git -C /workspace worktree add -q -b "nexus/$1" "/workspace/.nexus-worktrees/$1" HEAD`.replace(/\$1/g, w),
    );
  return {
    id: c.id,
    exec,
    sh,
    pane: (window) => sh(`tmux capture-pane -p -J -t 'nexus:${window}'`),
    remove: () => c.remove({ force: true, v: true }).catch(() => undefined),
  };
}

/**
 * The real Codex CLI for tests: exactly the pinned version scripts/install-codex-cli.sh installs
 * (NEXUS_CODEX_CLI_DIR when set, as CI sets it; else the script runs, a no-op once installed).
 */
export function testCodexCliDir(cpu: AgentCpu = process.arch === 'arm64' ? 'arm64' : 'x64'): string {
  if (!process.env.NEXUS_CODEX_CLI_DIR) {
    const out = execFileSync('bash', ['scripts/install-codex-cli.sh', cpu], { cwd: repoRoot, encoding: 'utf8' });
    process.env.NEXUS_CODEX_CLI_DIR = out.trim().split('\n').pop() ?? '';
  }
  const found = locateCodexBinaryDir(process.env.NEXUS_CODEX_CLI_DIR, cpu);
  if (!found) throw new Error(`NEXUS_CODEX_CLI_DIR=${process.env.NEXUS_CODEX_CLI_DIR} holds no linux-${cpu} Codex CLI`);
  return found.binaryDir;
}

/**
 * An ACP kind's pinned install for the tests: NEXUS_<KIND>_CLI_DIR, else the install script's (installed on first
 * use, as test.sh does up front). Returns the install directory the kind's cli.ts locates.
 */
export function testAcpCliDir(kind: string): string {
  const variable = `NEXUS_${kind.toUpperCase()}_CLI_DIR`;
  if (!process.env[variable]) {
    const out = execFileSync('bash', ['scripts/install-acp-cli.sh', kind], { cwd: repoRoot, encoding: 'utf8' });
    process.env[variable] = out.trim().split('\n').pop() ?? '';
  }
  return process.env[variable] ?? '';
}
