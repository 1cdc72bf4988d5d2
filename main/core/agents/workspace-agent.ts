import type { SecretKind } from '../../../shared/contract';
import { errorMessage, NexusError } from '../../../shared/errors';
import { cpuOf } from './agent-cpu';
import type { AgentService } from './agent-service';
import { credentialInjection, type CredentialFile } from './credential';
import type { AgentDrivers } from './registry';

/** An agent kind's CLI directory on the host, and where it goes in a worker. */
export interface AgentCliMount {
  dir: string;
  target: string;
}

/** What workspaces need of the agents: the CLIs to mount, and the credentials to put in at create and start. */
export interface WorkspaceAgent {
  /** Every installed kind's CLI to mount, and why a kind that should be there is not (the workspace still works). */
  clis(
    progress: (step: string, fraction?: number) => void,
  ): Promise<{ mounts: AgentCliMount[]; problem: string | null }>;
  /** The host directory of a kind's CLI (what its mount holds), or null when it is not installed. */
  cliOf(kind: string): Promise<string | null>;
  /** The worker's PATH with every kind's CLI first. */
  workerPath(): string;
  /** At create: the kind must be one this Nexus runs (throws bad_request naming those it does). */
  checkKind(kind: string): string;
  /** At create: the named secret must sign in some agent kind (metadata only). Returns its id. */
  checkCredential(secretId: string): string;
  /**
   * The real credential a kind signs in with in a workspace: the workspace's own where it is of that kind, else the
   * kind's default; null when there is none. Resolving needs the data key (throws while the vault is sealed).
   */
  credential(
    agentSecretId: string | null,
    kind: string,
  ): Promise<{ kind: SecretKind; value: string; name: string } | null>;
  /**
   * The docker exec at create and start that removes any key an earlier version put into the container (no key
   * enters one now: the model gateway signs in core), and the name of the default kind's credential.
   */
  injection(agentSecretId: string | null): Promise<{ cmd: string[]; stdin: string; credential: string | null }>;
}

export function workspaceAgent(deps: {
  drivers: AgentDrivers;
  agent: AgentService;
  resolve(secretId: string): Promise<{ value: string; kind: string; name: string }>;
  /** The Docker engine's architecture (`docker info`). */
  engineArchitecture(): Promise<string>;
}): WorkspaceAgent {
  return {
    async clis(progress) {
      const mounts: AgentCliMount[] = [];
      const problems: string[] = [];
      let cpu;
      try {
        cpu = cpuOf(await deps.engineArchitecture());
      } catch (e) {
        return {
          mounts,
          problem: `The agent CLIs are not available, so sessions cannot start here: ${errorMessage(e)}`,
        };
      }
      for (const d of deps.drivers.all) {
        try {
          const dir = await d.cli.locate(cpu, progress);
          if (dir) mounts.push({ dir, target: d.cli.mountTarget });
        } catch (e) {
          problems.push(`${d.label} is not available, so its sessions cannot start here: ${errorMessage(e)}`);
        }
      }
      return { mounts, problem: problems.length ? problems.join(' ') : null };
    },
    async cliOf(kind) {
      return deps.drivers.get(kind).cli.locate(cpuOf(await deps.engineArchitecture()), () => undefined);
    },
    workerPath: () => deps.drivers.workerPath(),
    checkKind: (kind) => deps.drivers.get(kind).kind,
    checkCredential(secretId) {
      for (const d of deps.drivers.all) {
        try {
          return deps.agent.checkCredential(secretId, d).id;
        } catch (e) {
          if (e instanceof NexusError && e.code === 'not_found') throw e;
        }
      }
      throw new NexusError(
        'bad_request',
        `Secret "${secretId}" signs in no agent: ` +
          `${deps.drivers.all.map((d) => `${d.label} needs ${d.credential.describe}`).join('; ')}.`,
      );
    },
    async credential(agentSecretId, kind) {
      const d = deps.drivers.get(kind);
      const kinds = d.credential.secretKinds.map((s) => s.kind);
      const own = agentSecretId ? await deps.resolve(agentSecretId) : null;
      if (own && kinds.includes(own.kind))
        return { kind: own.kind as SecretKind, value: own.value.trim(), name: own.name };
      const id = deps.agent.defaultCredentialId(d.kind);
      const s = id ? await deps.resolve(id) : null;
      return s && kinds.includes(s.kind) ? { kind: s.kind as SecretKind, value: s.value.trim(), name: s.name } : null;
    },
    async injection(agentSecretId) {
      // No kind's key enters a container: the model gateway signs requests in core. What versions before it wrote
      // into the container's tmpfs is removed; the reason names the default kind's credential, as before.
      const files: CredentialFile[] = deps.drivers.all.flatMap((d) =>
        d.credential.files.map((path) => ({ path, value: null, clear: [] })),
      );
      const named = await this.credential(agentSecretId, deps.drivers.default.kind).catch(() => null);
      return { ...credentialInjection(files), credential: named?.name ?? null };
    },
  };
}
