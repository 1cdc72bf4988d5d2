import type { AgentSettings, SecretSummary } from '../../../shared/contract';
import { NexusError } from '../../../shared/errors';
import type { EventBus } from '../events';
import type { Db } from '../store/open';
import type { AgentCli } from './agent-cli';
import type { CodexCli } from './codex-cli';
import type { AgentConfig } from './config';
import { isAgentCredentialKind } from './credential';
import { permissionModeFor, type PromptingMode } from './permission-mode';

export interface AgentServiceDeps {
  db: Db;
  cli: AgentCli;
  codex?: CodexCli;
  config: AgentConfig;
  /** sessions.permissionMode when the operator configured one. */
  configuredMode?: PromptingMode | undefined;
  /** Secret metadata (works while the vault is locked). */
  secrets: () => SecretSummary[];
  events: EventBus;
}

/** Settings → Agent: the default credential (one row, migration 008), the endpoint and the mode sessions start in. */
export class AgentService {
  constructor(private readonly deps: AgentServiceDeps) {}

  get(): AgentSettings {
    const mode = permissionModeFor({ configured: this.deps.configuredMode, baseUrl: this.deps.config.baseUrl });
    return {
      cli: this.deps.cli.info(),
      defaultCredentialId: this.defaultCredentialId(),
      codexCli: this.deps.codex?.info() ?? null,
      defaultCodexCredentialId: this.defaultCodexCredentialId(),
      baseUrl: this.deps.config.baseUrl ?? null,
      permissionMode: mode.mode,
      permissionModeReason: mode.reason,
    };
  }

  /** The default agent credential, null when none is chosen or the chosen secret is gone. */
  defaultCredentialId(): string | null {
    const row = this.deps.db.prepare('SELECT default_secret_id AS id FROM agent_settings WHERE id = 1').get() as
      { id: string | null } | undefined;
    const id = row?.id ?? null;
    return id && this.deps.secrets().some((s) => s.id === id) ? id : null;
  }

  /** The default Codex credential (an OpenAI API key), null when none is chosen or the secret is gone. */
  defaultCodexCredentialId(): string | null {
    const row = this.deps.db.prepare('SELECT codex_secret_id AS id FROM agent_settings WHERE id = 1').get() as
      { id: string | null } | undefined;
    const id = row?.id ?? null;
    return id && this.deps.secrets().some((s) => s.id === id && s.kind === 'openai_api_key') ? id : null;
  }

  setDefaultCodexCredential(secretId: string | null): AgentSettings {
    let id: string | null = null;
    if (secretId !== null) {
      const secret = this.deps.secrets().find((s) => s.id === secretId || s.name === secretId);
      if (!secret) throw new NexusError('not_found', `No secret "${secretId}" in the vault.`);
      if (secret.kind !== 'openai_api_key')
        throw new NexusError(
          'bad_request',
          `Secret "${secret.name}" is a ${secret.kind} token; Codex needs an OpenAI API key.`,
        );
      id = secret.id;
    }
    return this.saveCredential('codex_secret_id', id);
  }

  setDefaultCredential(secretId: string | null): AgentSettings {
    const id = secretId === null ? null : this.checkCredential(secretId).id;
    return this.saveCredential('default_secret_id', id);
  }

  /** Stores one of the two credential choices (a column name from this file, never input) and says so. */
  private saveCredential(column: 'default_secret_id' | 'codex_secret_id', id: string | null): AgentSettings {
    this.deps.db
      .prepare(
        `INSERT INTO agent_settings (id, ${column}, updated_at) VALUES (1, ?, ?)
         ON CONFLICT(id) DO UPDATE SET ${column} = excluded.${column}, updated_at = excluded.updated_at`,
      )
      .run(id, new Date().toISOString());
    const settings = this.get();
    this.deps.events.emit('agent.changed', settings);
    return settings;
  }

  /** Throws unless the id names a vault secret of an agent credential kind (metadata only, no data key). */
  checkCredential(secretId: string): SecretSummary {
    const secret = this.deps.secrets().find((s) => s.id === secretId || s.name === secretId);
    if (!secret) throw new NexusError('not_found', `No secret "${secretId}" in the vault.`);
    if (!isAgentCredentialKind(secret.kind))
      throw new NexusError(
        'bad_request',
        `Secret "${secret.name}" is a ${secret.kind} token; the agent needs an Anthropic API key or a Claude ` +
          `OAuth token (from claude setup-token).`,
      );
    return secret;
  }
}
