import type Docker from 'dockerode';
import { AGENT_CLI_MOUNT, agentCliMount, WORKER_PATH_WITH_AGENT } from '../agent/agent-cli';
import type { AgentCliSource } from './engine-port';
import { codexCliMount } from '../agent/codex-cli';
import { workspaceLabels } from './labels';

export const WORKSPACE_DIR = '/workspace';
/** tmpfs for the short-lived credential file: in memory only, owned by the worker user. */
export const CREDENTIAL_DIR = '/run/nexus';
export const WORKER_UID = '1000:1000';

export interface ContainerLimits {
  network: string;
  memoryBytes: number;
  pidsLimit: number;
}

export const containerNameOf = (w: { id: string; name: string }): string => `nexus-${w.name}-${w.id.slice(0, 8)}`;

/**
 * The hardened container for one workspace: the worker user (not root), every capability dropped
 * (git, tmux and node need none), no-new-privileges, memory and pids limits, no Docker socket, the
 * clone on its own named volume, the credential directory on tmpfs. Nothing secret goes in here:
 * this whole object is what `docker inspect` shows.
 */
export function workspaceContainerSpec(
  w: { id: string; name: string; volume: string },
  image: string,
  owner: string,
  limits: ContainerLimits,
  /**
   * The pinned agent CLI: its binary directory on the host, mounted read-only (see agent/agent-cli.ts),
   * or on a remote engine a volume holding it (mounted read-only the same place).
   */
  agentCli?: string | AgentCliSource | null,
  /** The pinned Codex CLI's `vendor/<triple>` directory, mounted read-only (see agent/codex-cli.ts); local engine only. */
  codexCliDir?: string | null,
): Docker.ContainerCreateOptions {
  return {
    name: containerNameOf(w),
    Image: image,
    User: WORKER_UID,
    WorkingDir: WORKSPACE_DIR,
    Labels: workspaceLabels(owner, w),
    Env: ['HOME=/home/nexus', 'NEXUS_WORKER=1', `PATH=${WORKER_PATH_WITH_AGENT}`, 'GIT_TERMINAL_PROMPT=0'],
    HostConfig: {
      NetworkMode: limits.network,
      Privileged: false,
      CapDrop: ['ALL'],
      CapAdd: [],
      SecurityOpt: ['no-new-privileges'],
      Memory: limits.memoryBytes,
      PidsLimit: limits.pidsLimit,
      Mounts: [
        { Type: 'volume', Source: w.volume, Target: WORKSPACE_DIR },
        ...agentCliMounts(agentCli),
        ...(codexCliDir ? [codexCliMount(codexCliDir)] : []),
      ],
      Tmpfs: {
        [CREDENTIAL_DIR]: 'rw,noexec,nosuid,nodev,size=64k,mode=0700,uid=1000,gid=1000',
        '/tmp': 'rw,nosuid,nodev,size=256m,mode=1777',
      },
      RestartPolicy: { Name: 'no' },
    },
  };
}

function agentCliMounts(cli: string | AgentCliSource | null | undefined): Docker.MountSettings[] {
  if (!cli) return [];
  if (typeof cli === 'string') return [agentCliMount(cli)];
  if ('bind' in cli) return [agentCliMount(cli.bind)];
  return [{ Type: 'volume', Source: cli.volume, Target: AGENT_CLI_MOUNT, ReadOnly: true }];
}

/** The payload nexus-with-credential reads from stdin: host, username, token, one per line. */
export const credentialPayload = (c: { host: string | null; username: string; token: string } | null): string =>
  c ? `${c.host ?? ''}\n${c.username}\n${c.token}\n` : '\n\n\n';
