import { errorMessage, NexusError } from '../../../shared/errors';
import type { AgentCli, CliProgress } from './agent-cli';
import { cpuOf } from './agent-cli';
import type { CodexCli } from './codex-cli';
import type { AgentService } from './agent-service';
import { credentialInjection, isAgentCredentialKind, withCodexKey, type AgentCredentialKind } from './credential';

/** What workspaces need of the agent: the CLI to mount, and the credential to put in at create and start. */
export interface WorkspaceAgent {
  /** The host directory to mount, or why there is none (the workspace still works; sessions cannot start). */
  cliDir(progress: CliProgress): Promise<{ dir: string | null; codexDir?: string | null; problem: string | null }>;
  /** At create: the named secret must be an agent credential (metadata only). Returns its id. */
  checkCredential(secretId: string): string;
  /**
   * The docker exec that puts the workspace's credential (its own, else the default) into the
   * container, or clears it when there is none. Resolving needs the data key: create and start only.
   */
  injection(agentSecretId: string | null): Promise<{ cmd: string[]; stdin: string; credential: string | null }>;
}

export function workspaceAgent(deps: {
  cli: AgentCli;
  /** The Codex CLI: mounted when installed; a workspace without it still runs Claude sessions. */
  codex?: CodexCli;
  agent: AgentService;
  resolve(secretId: string): Promise<{ value: string; kind: string; name: string }>;
  /** The Docker engine's architecture (`docker info`). */
  engineArchitecture(): Promise<string>;
  addSecret(value: string): void;
}): WorkspaceAgent {
  return {
    async cliDir(progress) {
      try {
        const cpu = cpuOf(await deps.engineArchitecture());
        const codexDir = deps.codex?.find(cpu)?.binaryDir ?? null;
        return { dir: (await deps.cli.ensure(cpu, progress)).binaryDir, codexDir, problem: null };
      } catch (e) {
        return {
          dir: null,
          problem: `The agent CLI is not available, so sessions cannot start here: ${errorMessage(e)}`,
        };
      }
    },
    checkCredential: (secretId) => deps.agent.checkCredential(secretId).id,
    async injection(agentSecretId) {
      // Codex's key (Settings → Agent's default Codex credential) rides along in the same exec.
      const codexId = deps.agent.defaultCodexCredentialId();
      let codexKey: string | null = null;
      if (codexId) {
        const s = await deps.resolve(codexId);
        if (s.kind === 'openai_api_key') {
          codexKey = s.value.trim();
          deps.addSecret(codexKey);
        }
      }
      const id = agentSecretId ?? deps.agent.defaultCredentialId();
      if (!id) return { ...withCodexKey(credentialInjection(null), codexKey), credential: null };
      const secret = await deps.resolve(id);
      if (!isAgentCredentialKind(secret.kind))
        throw new NexusError('bad_request', `Secret "${secret.name}" is not an agent credential.`);
      deps.addSecret(secret.value.trim());
      return {
        ...withCodexKey(
          credentialInjection({ kind: secret.kind as AgentCredentialKind, value: secret.value }),
          codexKey,
        ),
        credential: secret.name,
      };
    },
  };
}
