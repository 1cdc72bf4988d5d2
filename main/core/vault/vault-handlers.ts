import type { Handlers } from '../handlers';
import type { VaultService } from './vault';

type VaultOps =
  | 'vault.status'
  | 'vault.init'
  | 'vault.lock'
  | 'vault.unlock'
  | 'vault.changePassphrase'
  | 'secrets.list'
  | 'secrets.create'
  | 'secrets.update'
  | 'secrets.delete';

/** vault.* and secrets.* operations (operator only, per the contract). No handler returns a value or key. */
export function vaultHandlers(vault: VaultService): Pick<Handlers, VaultOps> {
  return {
    'vault.status': () => vault.status(),
    'vault.init': (input) => vault.init(input),
    'vault.lock': () => vault.lock(),
    'vault.unlock': (input) => vault.unlock(input.passphrase),
    'vault.changePassphrase': (input) => vault.changePassphrase(input.currentPassphrase, input.newPassphrase),
    'secrets.list': () => ({ secrets: vault.secrets.list() }),
    'secrets.create': (input) => vault.secrets.create(input),
    'secrets.update': (input) => vault.secrets.update(input),
    'secrets.delete': (input) => vault.secrets.delete(input.id),
  };
}
