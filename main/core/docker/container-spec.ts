import type Docker from 'dockerode';
import type { AgentCliSource } from './engine-port';
import { workspaceLabels } from './labels';

export const WORKSPACE_DIR = '/workspace';
/** tmpfs for the short-lived credential file: in memory only, owned by the worker user. */
export const CREDENTIAL_DIR = '/run/nexus';
export const WORKER_UID = '1000:1000';

/** An agent CLI in a worker: where it comes from (engine-port.ts) and where it is mounted. */
export interface AgentCliVolume {
  source: AgentCliSource;
  target: string;
}

/** A worker's PATH before the agents' CLIs are put first (agents/registry.ts). */
export const BASE_WORKER_PATH = '/opt/nexus/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';

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
   * The agents: each kind's pinned CLI, its binary directory on the host (or on a remote engine a volume holding
   * it) mounted read-only at its target, and the PATH that puts them first (agents/registry.ts workerPath).
   */
  agents: { mounts: readonly AgentCliVolume[]; path: string } = { mounts: [], path: BASE_WORKER_PATH },
  /** A confined workspace: the internal network instead of the workers', and the proxy's environment (egress/). */
  egress: { network: string; env: readonly string[] } | null = null,
): Docker.ContainerCreateOptions {
  return {
    name: containerNameOf(w),
    Image: image,
    User: WORKER_UID,
    WorkingDir: WORKSPACE_DIR,
    Labels: workspaceLabels(owner, w),
    Env: ['HOME=/home/nexus', 'NEXUS_WORKER=1', `PATH=${agents.path}`, 'GIT_TERMINAL_PROMPT=0', ...(egress?.env ?? [])],
    HostConfig: {
      NetworkMode: egress?.network ?? limits.network,
      Privileged: false,
      CapDrop: ['ALL'],
      CapAdd: [],
      SecurityOpt: ['no-new-privileges'],
      Memory: limits.memoryBytes,
      PidsLimit: limits.pidsLimit,
      Mounts: [
        { Type: 'volume', Source: w.volume, Target: WORKSPACE_DIR },
        ...agents.mounts.map(({ source, target }) =>
          'bind' in source
            ? { Type: 'bind' as const, Source: source.bind, Target: target, ReadOnly: true }
            : { Type: 'volume' as const, Source: source.volume, Target: target, ReadOnly: true },
        ),
      ],
      Tmpfs: {
        [CREDENTIAL_DIR]: 'rw,noexec,nosuid,nodev,size=64k,mode=0700,uid=1000,gid=1000',
        '/tmp': 'rw,nosuid,nodev,size=256m,mode=1777',
      },
      RestartPolicy: { Name: 'no' },
    },
  };
}

/** The payload nexus-with-credential reads from stdin: host, username, token, one per line. */
export const credentialPayload = (c: { host: string | null; username: string; token: string } | null): string =>
  c ? `${c.host ?? ''}\n${c.username}\n${c.token}\n` : '\n\n\n';
