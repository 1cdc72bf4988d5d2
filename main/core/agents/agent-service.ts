import type { AgentKindInfo, AgentSettings, SecretSummary } from '../../../shared/contract';
import { NexusError } from '../../../shared/errors';
import type { EventBus } from '../events';
import type { Db } from '../store';
import { AgentCredentialStore } from './agent-credential-store';
import type { AgentDriver } from './driver';
import { permissionModeFor, type PromptingMode } from './permission-mode';
import type { AgentDrivers } from './registry';

export interface AgentServiceDeps {
  db: Db;
  drivers: AgentDrivers;
  /** sessions.permissionMode when the operator configured one. */
  configuredMode?: PromptingMode | undefined;
  /** Secret metadata (works while the vault is locked). */
  secrets: () => SecretSummary[];
  events: EventBus;
}

/** Settings → Agent: every kind with its default credential (one row per kind), its endpoint and the starting mode. */
export class AgentService {
  private readonly credentials: AgentCredentialStore;

  constructor(private readonly deps: AgentServiceDeps) {
    this.credentials = new AgentCredentialStore(deps.db);
  }

  get(): AgentSettings {
    const mode = permissionModeFor({
      configured: this.deps.configuredMode,
      // Every session's model calls go through Nexus's gateway.
      customEndpoint: true,
    });
    return {
      kinds: this.deps.drivers.all.map((d) => this.kindInfo(d)),
      credentials: [...this.deps.drivers.credentials],
      permissionMode: mode.mode,
      permissionModeReason: mode.reason,
    };
  }

  private kindInfo(d: AgentDriver): AgentKindInfo {
    return {
      kind: d.kind,
      label: d.label,
      cli: d.cli.info(),
      credentialKinds: d.credential.secretKinds.map((s) => s.kind),
      defaultCredentialId: this.defaultCredentialId(d.kind),
      baseUrl: d.baseUrl,
      capabilities: d.capabilities,
    };
  }

  /** The kind's default credential, null when none is chosen or the chosen secret is gone (or of another kind). */
  defaultCredentialId(kind: string): string | null {
    const driver = this.deps.drivers.get(kind);
    const id = this.credentials.get(kind);
    return id && this.deps.secrets().some((s) => s.id === id && signsIn(driver, s.kind)) ? id : null;
  }

  /**
   * Whether a kind's sessions in a workspace have a credential (the workspace's own when it is of the kind, else the
   * kind's default): metadata only, so it works while the vault is sealed.
   */
  hasCredential(workspaceSecretId: string | null, kind: string): boolean {
    const driver = this.deps.drivers.get(kind);
    const own = workspaceSecretId ? this.deps.secrets().find((s) => s.id === workspaceSecretId) : undefined;
    return (own && signsIn(driver, own.kind)) || this.defaultCredentialId(kind) !== null;
  }

  setDefaultCredential(kind: string, secretId: string | null): AgentSettings {
    const driver = this.deps.drivers.get(kind);
    this.credentials.set(kind, secretId === null ? null : this.checkCredential(secretId, driver).id);
    const settings = this.get();
    this.deps.events.emit('agent.changed', settings);
    return settings;
  }

  /**
   * Throws unless the id (or name) names a vault secret that signs in the kind (the default kind when none is
   * named: a workspace's own credential). Metadata only, no data key.
   */
  checkCredential(secretId: string, driver: AgentDriver = this.deps.drivers.default): SecretSummary {
    const secret = this.deps.secrets().find((s) => s.id === secretId || s.name === secretId);
    if (!secret) throw new NexusError('not_found', `No secret "${secretId}" in the vault.`);
    if (!signsIn(driver, secret.kind))
      throw new NexusError(
        'bad_request',
        `Secret "${secret.name}" is a ${secret.kind} token; ${driver.label} needs ${driver.credential.describe}.`,
      );
    return secret;
  }
}

/** Whether a secret of `kind` signs the driver's kind in. */
const signsIn = (driver: AgentDriver, kind: string): boolean =>
  driver.credential.secretKinds.some((s) => s.kind === kind);
