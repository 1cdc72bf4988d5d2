import type { VaultMode } from '../../../shared/contract';
import type { KekParams } from './principal-keys';

// How a vault opens, from its operator principal's KEK source, and the sentences the UI shows for each.

export function modeOf(params: KekParams): VaultMode {
  if (params.kdf === 'scrypt') return 'passphrase';
  if (params.kdf === 'key_file') return 'key_file';
  return 'keychain';
}

export const NOT_SET_UP = 'The vault has not been set up yet.';
export const SEALED = 'Sealed: unlock with the passphrase in the UI or `nexus unlock`.';

export const unlockedReason = (mode: VaultMode, keyFile: string | undefined): string =>
  mode === 'passphrase'
    ? 'Unlocked with the passphrase; it is sealed again at the next start of Nexus.'
    : mode === 'key_file'
      ? `Unlocked with the key file ${keyFile ?? ''}.`
      : 'Unlocked: the key is in the OS keychain.';

export const lockedReason = (mode: VaultMode): string =>
  mode === 'passphrase'
    ? `Locked by the operator. ${SEALED}`
    : mode === 'key_file'
      ? 'Locked by the operator. Unlock with the recovery passphrase or retry the key file.'
      : 'Locked by the operator. Unlock with the recovery passphrase or retry the OS keychain.';

export const noKeyFileReason =
  'Sealed: this vault opens with a key file and Nexus was started without one ' +
  '(--vault-key-file, NEXUS_VAULT_KEY_FILE or the systemd credential nexus-vault-key).';

export const keychainSetUpHint =
  'Set up the vault with a passphrase instead: it is then sealed at every start until you unlock it ' +
  '(in the UI or with `nexus unlock`).';
