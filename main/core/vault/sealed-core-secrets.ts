import { NexusError } from '../../../shared/errors';
import type { Db } from '../store';
import type { CoreSecretName, SecretFallback } from './core-secret';
import { coreSecretBinding, CoreSecretStore } from './core-secret-store';
import { open, seal, VaultError } from './crypto';
import type { Dek } from './dek';

/** The sentence a core secret's refusal ends with: what the operator does about a vault it needs. */
export const SET_UP_VAULT =
  'The OS keychain is not reachable, so Nexus keeps this secret in the vault: set up the vault in Settings → Vault ' +
  '(a passphrase works without a keychain), then try again.';
export const UNLOCK_VAULT =
  'The OS keychain is not reachable, so Nexus keeps this secret in the vault, and the vault is sealed: ' +
  'unlock it in Settings → Vault or with `nexus unlock`, then try again.';

/**
 * Core's own secrets sealed with the vault's data key in `core_secrets`, for where no keychain
 * answers. A sealed or unset vault is a `vault_locked` refusal that says what to do, never `internal`.
 */
export class SealedCoreSecrets {
  private readonly store: CoreSecretStore;

  constructor(
    db: Db,
    private readonly vault: { requireDek(): Dek },
  ) {
    this.store = new CoreSecretStore(db);
  }

  /** The fallback for one named secret. */
  at(name: CoreSecretName): SecretFallback {
    const key = { service: name.service, account: name.account };
    return {
      read: () => {
        const row = this.store.get(key);
        if (!row) return null;
        const dek = this.dek();
        try {
          return open(dek.key, dek.term, row.sealedValue, coreSecretBinding(key)).toString('utf8');
        } catch (e) {
          // Damaged or moved: as good as missing (the caller mints a new one when it sets it again).
          if (e instanceof VaultError) return null;
          throw e;
        }
      },
      write: (secret) => {
        const dek = this.dek();
        const sealedValue = seal(dek.key, dek.term, Buffer.from(secret, 'utf8'), coreSecretBinding(key));
        this.store.put({ ...key, dekTerm: dek.term, sealedValue, updatedAt: new Date().toISOString() });
      },
      remove: () => void this.store.delete(key),
      ready: () => void this.dek(),
    };
  }

  private dek(): Dek {
    try {
      return this.vault.requireDek();
    } catch (e) {
      if (e instanceof NexusError && e.code === 'vault_uninitialized')
        throw new NexusError('vault_locked', SET_UP_VAULT);
      if (e instanceof NexusError && e.code === 'vault_locked') throw new NexusError('vault_locked', UNLOCK_VAULT);
      throw e;
    }
  }
}
